//! `schema/schema-<id>`: the table schema and its options (`paimon-format.md` §1.5, §5.1).
//!
//! The options that decide recovery behaviour are read into [`TableOptions`] with Paimon's
//! defaults, so checks never re-parse strings.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::{Error, Result};

/// One field of a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaField {
    /// Field id.
    pub id: i64,
    /// Field name.
    pub name: String,
    /// Type as written: a string like `BIGINT NOT NULL`, or compact JSON for complex types.
    pub data_type: String,
}

/// A parsed schema file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSchema {
    /// Schema id.
    pub id: i64,
    /// Schema format version (1 if absent).
    pub version: i32,
    /// Fields in order.
    pub fields: Vec<SchemaField>,
    /// Partition keys in order.
    pub partition_keys: Vec<String>,
    /// Primary keys (empty for append tables).
    pub primary_keys: Vec<String>,
    /// All options as written.
    pub options: BTreeMap<String, String>,
    /// Creation time, epoch ms.
    pub time_millis: Option<i64>,
    /// `options` with Paimon's defaults applied, parsed once ([`Self::table_options`]).
    parsed: TableOptions,
}

/// `bucket = -2`: postpone-bucket mode (Paimon 1.1+), and the `_BUCKET` of the files its
/// writers put in `bucket-postpone/` (`paimon-format.md` §1.3, §4.9).
pub const POSTPONE_BUCKET: i32 = -2;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSchema {
    version: Option<i32>,
    id: Option<i64>,
    #[serde(default)]
    fields: Vec<RawField>,
    #[serde(default)]
    partition_keys: Vec<String>,
    #[serde(default)]
    primary_keys: Vec<String>,
    #[serde(default)]
    options: BTreeMap<String, serde_json::Value>,
    time_millis: Option<i64>,
}

#[derive(Deserialize)]
struct RawField {
    id: Option<i64>,
    name: Option<String>,
    #[serde(rename = "type")]
    data_type: Option<serde_json::Value>,
}

impl TableSchema {
    /// Parses a schema file.
    pub fn parse(json: &[u8]) -> Result<TableSchema> {
        let raw: RawSchema = serde_json::from_slice(json)
            .map_err(|e| Error::format(format!("not valid schema JSON: {e}")))?;
        let fields = raw
            .fields
            .into_iter()
            .enumerate()
            .map(|(i, f)| {
                let name = f
                    .name
                    .ok_or_else(|| Error::format(format!("field {i} has no name")))?;
                let data_type = match f.data_type {
                    Some(serde_json::Value::String(s)) => s,
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                Ok(SchemaField {
                    id: f.id.unwrap_or(i as i64),
                    name,
                    data_type,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let options = raw
            .options
            .into_iter()
            .map(|(k, v)| {
                let v = match v {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                (k, v)
            })
            .collect();
        let version = raw.version.unwrap_or(1);
        Ok(TableSchema {
            id: raw.id.unwrap_or(0),
            version,
            fields,
            partition_keys: raw.partition_keys,
            primary_keys: raw.primary_keys,
            parsed: TableOptions::from_map(&options, version),
            options,
            time_millis: raw.time_millis,
        })
    }

    /// The partition fields (name, type) in partition-key order; fields not found are skipped.
    pub fn partition_fields(&self) -> Vec<(String, String)> {
        self.partition_keys
            .iter()
            .filter_map(|k| {
                self.fields
                    .iter()
                    .find(|f| &f.name == k)
                    .map(|f| (f.name.clone(), f.data_type.clone()))
            })
            .collect()
    }

    /// The options with Paimon's defaults applied.
    pub fn table_options(&self) -> &TableOptions {
        &self.parsed
    }
}

/// `changelog-producer` (`paimon-format.md` §4.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangelogProducer {
    /// No changelog files; readers use APPEND deltas.
    None,
    /// Input records double-written at flush; changelog on the APPEND snapshot.
    Input,
    /// Lookup compaction; changelog on the COMPACT snapshot.
    Lookup,
    /// Full compaction diffs; changelog on the COMPACT snapshot.
    FullCompaction,
    /// A value this tool does not know.
    Other(String),
}

impl ChangelogProducer {
    fn parse(s: &str) -> Self {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => ChangelogProducer::None,
            "input" => ChangelogProducer::Input,
            "lookup" => ChangelogProducer::Lookup,
            "full-compaction" => ChangelogProducer::FullCompaction,
            _ => ChangelogProducer::Other(s.to_string()),
        }
    }

    /// The option value.
    pub fn as_str(&self) -> &str {
        match self {
            ChangelogProducer::None => "none",
            ChangelogProducer::Input => "input",
            ChangelogProducer::Lookup => "lookup",
            ChangelogProducer::FullCompaction => "full-compaction",
            ChangelogProducer::Other(s) => s,
        }
    }

    /// Whether the changelog comes from compaction, i.e. lives in the COMPACT half of a commit.
    pub fn from_compaction(&self) -> bool {
        matches!(
            self,
            ChangelogProducer::Lookup | ChangelogProducer::FullCompaction
        )
    }
}

/// The options that matter for recovery, with Paimon's defaults (`paimon-format.md` §5.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableOptions {
    /// `changelog-producer` (default `none`).
    pub changelog_producer: ChangelogProducer,
    /// `changelog-producer.lookup-wait` / `lookup-wait` (default true).
    pub lookup_wait: bool,
    /// `write-only` (default false): writers neither compact nor expire.
    pub write_only: bool,
    /// `consumer.expiration-time` in ms (no default).
    pub consumer_expiration_millis: Option<i64>,
    /// `consumer.changelog-only` (default false, 1.4+).
    pub consumer_changelog_only: bool,
    /// `consumer-id` set as a table option (usually a reader option).
    pub consumer_id: Option<String>,
    /// `snapshot.num-retained.min` (default 10).
    pub snapshot_retained_min: i64,
    /// `snapshot.num-retained.max` (default Integer.MAX_VALUE).
    pub snapshot_retained_max: i64,
    /// `snapshot.time-retained` in ms (default 1 h).
    pub snapshot_time_retained_millis: i64,
    /// `changelog.num-retained.min` (inherits the snapshot value).
    pub changelog_retained_min: i64,
    /// `changelog.num-retained.max` (inherits the snapshot value).
    pub changelog_retained_max: i64,
    /// `changelog.time-retained` in ms (inherits the snapshot value).
    pub changelog_time_retained_millis: i64,
    /// `bucket` (default 1 for schema version 1, else -1 in recent versions when absent).
    pub bucket: Option<i64>,
    /// `full-compaction.delta-commits` (no default).
    pub full_compaction_delta_commits: Option<i64>,
    /// `data-file.prefix` (default `data-`).
    pub data_file_prefix: String,
    /// `changelog-file.prefix` (default `changelog-`).
    pub changelog_file_prefix: String,
    /// `file.format` (default `parquet`; `orc` for schema versions 1 and 2 when absent).
    pub file_format: String,
    /// `deletion-vectors.enabled` (default false).
    pub deletion_vectors: bool,
    /// `streaming-read-overwrite` (default false): streaming readers read an OVERWRITE's delta
    /// instead of skipping the snapshot (`paimon-format.md` §4.7).
    pub streaming_read_overwrite: bool,
    /// `precommit-compact` (default false): changelog merged into `compacted-changelog-*` files.
    pub precommit_compact: bool,
    /// `index-file-in-data-file-dir` (default false, 1.1+): index files live in the bucket
    /// directories instead of `index/` (`paimon-format.md` §1.8).
    pub index_file_in_data_file_dir: bool,
    /// `orc.timestamp-ltz.legacy.type` (default true): ORC files hold a TIMESTAMP_LTZ value as
    /// its epoch read as a wall clock in the writer JVM's zone, not as the instant itself
    /// (`paimon-format.md`, "ORC timestamps").
    pub orc_timestamp_ltz_legacy: bool,
    /// `data-file.external-paths` (1.1+): the roots new data files are written under, as URIs
    /// (`paimon-format.md` §1.3).
    pub data_file_external_paths: Vec<String>,
    /// Options that could not be parsed, with the problem.
    pub problems: Vec<String>,
}

impl TableOptions {
    /// Whether the table is in postpone-bucket mode ([`POSTPONE_BUCKET`]).
    pub fn postpone_bucket(&self) -> bool {
        self.bucket == Some(i64::from(POSTPONE_BUCKET))
    }

    /// Reads the options from a schema's option map.
    pub fn from_map(map: &BTreeMap<String, String>, schema_version: i32) -> Self {
        let mut problems = Vec::new();
        let get = |k: &str| map.get(k).map(|s| s.trim().to_string());
        let bool_opt = |keys: &[&str], default: bool, problems: &mut Vec<String>| {
            for k in keys {
                if let Some(v) = get(k) {
                    match v.to_ascii_lowercase().as_str() {
                        "true" => return true,
                        "false" => return false,
                        _ => problems.push(format!("{k} = {v:?} is not true/false")),
                    }
                }
            }
            default
        };
        let lookup_wait = bool_opt(
            &["changelog-producer.lookup-wait", "lookup-wait"],
            true,
            &mut problems,
        );
        let write_only = bool_opt(&["write-only"], false, &mut problems);
        let consumer_changelog_only = bool_opt(&["consumer.changelog-only"], false, &mut problems);
        let deletion_vectors = bool_opt(&["deletion-vectors.enabled"], false, &mut problems);
        let streaming_read_overwrite =
            bool_opt(&["streaming-read-overwrite"], false, &mut problems);
        let precommit_compact = bool_opt(&["precommit-compact"], false, &mut problems);
        let index_file_in_data_file_dir =
            bool_opt(&["index-file-in-data-file-dir"], false, &mut problems);
        let orc_timestamp_ltz_legacy =
            bool_opt(&["orc.timestamp-ltz.legacy.type"], true, &mut problems);

        let int_opt = |k: &str, problems: &mut Vec<String>| -> Option<i64> {
            let v = get(k)?;
            match v.parse::<i64>() {
                Ok(n) => Some(n),
                Err(_) => {
                    problems.push(format!("{k} = {v:?} is not an integer"));
                    None
                }
            }
        };
        let snapshot_retained_min =
            int_opt("snapshot.num-retained.min", &mut problems).unwrap_or(10);
        let snapshot_retained_max =
            int_opt("snapshot.num-retained.max", &mut problems).unwrap_or(i64::from(i32::MAX));
        let changelog_retained_min =
            int_opt("changelog.num-retained.min", &mut problems).unwrap_or(snapshot_retained_min);
        let changelog_retained_max =
            int_opt("changelog.num-retained.max", &mut problems).unwrap_or(snapshot_retained_max);
        let bucket =
            int_opt("bucket", &mut problems).or(if schema_version <= 1 { Some(1) } else { None });
        let full_compaction_delta_commits = int_opt("full-compaction.delta-commits", &mut problems);

        let duration_opt = |k: &str, problems: &mut Vec<String>| -> Option<i64> {
            let v = get(k)?;
            match parse_duration_millis(&v) {
                Some(ms) => Some(ms),
                None => {
                    problems.push(format!("{k} = {v:?} is not a duration"));
                    None
                }
            }
        };
        let snapshot_time_retained_millis =
            duration_opt("snapshot.time-retained", &mut problems).unwrap_or(3_600_000);
        let changelog_time_retained_millis = duration_opt("changelog.time-retained", &mut problems)
            .unwrap_or(snapshot_time_retained_millis);
        let consumer_expiration_millis = duration_opt("consumer.expiration-time", &mut problems);

        TableOptions {
            changelog_producer: get("changelog-producer")
                .map(|s| ChangelogProducer::parse(&s))
                .unwrap_or(ChangelogProducer::None),
            lookup_wait,
            write_only,
            consumer_expiration_millis,
            consumer_changelog_only,
            consumer_id: get("consumer-id"),
            snapshot_retained_min,
            snapshot_retained_max,
            snapshot_time_retained_millis,
            changelog_retained_min,
            changelog_retained_max,
            changelog_time_retained_millis,
            bucket,
            full_compaction_delta_commits,
            data_file_prefix: get("data-file.prefix").unwrap_or_else(|| "data-".into()),
            changelog_file_prefix: get("changelog-file.prefix")
                .unwrap_or_else(|| "changelog-".into()),
            file_format: get("file.format").unwrap_or_else(|| {
                if schema_version <= 2 {
                    "orc".into()
                } else {
                    "parquet".into()
                }
            }),
            deletion_vectors,
            streaming_read_overwrite,
            precommit_compact,
            index_file_in_data_file_dir,
            orc_timestamp_ltz_legacy,
            data_file_external_paths: get("data-file.external-paths")
                .map(|v| {
                    v.split(',')
                        .map(|r| r.trim().to_string())
                        .filter(|r| !r.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
            problems,
        }
    }

    /// Whether the changelog lifecycle is decoupled from snapshots (`paimon-format.md` §1.6):
    /// expired snapshots then leave `changelog/changelog-N` behind.
    pub fn changelog_decoupled(&self) -> bool {
        self.changelog_retained_max > self.snapshot_retained_max
            || self.changelog_retained_min > self.snapshot_retained_min
            || self.changelog_time_retained_millis > self.snapshot_time_retained_millis
    }
}

/// Parses a Paimon duration (`TimeUtils.parseDuration`): a number and an optional unit
/// (`ms` when absent): `d`/`day(s)`, `h`/`hour(s)`, `min`/`m`/`minute(s)`, `s`/`sec(s)`/
/// `second(s)`, `ms`/`milli(s)`/`millisecond(s)`, `us`/`µs`/`micro…`, `ns`/`nano…`. Spaces
/// between number and unit are allowed. Also accepts ISO-8601 `PT…` as a courtesy.
pub fn parse_duration_millis(s: &str) -> Option<i64> {
    let s = s.trim();
    if let Some(iso) = s.strip_prefix("PT").or_else(|| s.strip_prefix("pt")) {
        return parse_iso_time(iso);
    }
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: i64 = num.parse().ok()?;
    let unit = unit.trim().to_ascii_lowercase();
    let ms = match unit.as_str() {
        "" | "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => n,
        "s" | "sec" | "secs" | "second" | "seconds" => n.checked_mul(1_000)?,
        "m" | "min" | "mins" | "minute" | "minutes" => n.checked_mul(60_000)?,
        "h" | "hour" | "hours" => n.checked_mul(3_600_000)?,
        "d" | "day" | "days" => n.checked_mul(86_400_000)?,
        "us" | "µs" | "micro" | "micros" | "microsecond" | "microseconds" => n / 1_000,
        "ns" | "nano" | "nanos" | "nanosecond" | "nanoseconds" => n / 1_000_000,
        _ => return None,
    };
    Some(ms)
}

fn parse_iso_time(s: &str) -> Option<i64> {
    let mut total: i64 = 0;
    let mut num = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() || c == '.' {
            num.push(c);
            continue;
        }
        let n: f64 = num.parse().ok()?;
        num.clear();
        let unit = match c.to_ascii_uppercase() {
            'H' => 3_600_000.0,
            'M' => 60_000.0,
            'S' => 1_000.0,
            _ => return None,
        };
        total = total.checked_add((n * unit) as i64)?;
    }
    if !num.is_empty() {
        return None;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA: &str = r#"{ "version" : 3, "id" : 0,
  "fields" : [ { "id" : 0, "name" : "order_id", "type" : "BIGINT NOT NULL" },
               { "id" : 1, "name" : "dt", "type" : "STRING" },
               { "id" : 2, "name" : "tags", "type" : {"type":"ARRAY","element":"STRING"} } ],
  "highestFieldId" : 2, "partitionKeys" : [ "dt" ], "primaryKeys" : [ "order_id", "dt" ],
  "options" : { "bucket" : "5", "changelog-producer" : "lookup", "consumer.expiration-time" : "1 d",
                "snapshot.num-retained.max" : "5", "changelog.num-retained.max" : "12" },
  "comment" : "", "timeMillis" : 1720496663041 }"#;

    #[test]
    fn parses_schema_and_options() {
        let s = TableSchema::parse(SCHEMA.as_bytes()).unwrap();
        assert_eq!(s.fields.len(), 3);
        assert_eq!(
            s.partition_fields(),
            vec![("dt".to_string(), "STRING".to_string())]
        );
        assert!(s.fields[2].data_type.contains("ARRAY"));
        let o = s.table_options();
        assert_eq!(o.changelog_producer, ChangelogProducer::Lookup);
        assert!(o.changelog_producer.from_compaction());
        assert_eq!(o.consumer_expiration_millis, Some(86_400_000));
        assert_eq!(o.bucket, Some(5));
        assert!(o.lookup_wait);
        assert!(o.changelog_decoupled());
        assert!(o.problems.is_empty());
        assert_eq!(o.file_format, "parquet");
    }

    #[test]
    fn defaults_follow_paimon() {
        let o = TableOptions::from_map(&BTreeMap::new(), 3);
        assert_eq!(o.changelog_producer, ChangelogProducer::None);
        assert_eq!(o.snapshot_retained_min, 10);
        assert_eq!(o.snapshot_time_retained_millis, 3_600_000);
        assert!(!o.changelog_decoupled());
        assert_eq!(o.consumer_expiration_millis, None);
        let v1 = TableOptions::from_map(&BTreeMap::new(), 1);
        assert_eq!(v1.bucket, Some(1));
        assert_eq!(v1.file_format, "orc");
    }

    #[test]
    fn bad_options_are_reported_not_fatal() {
        let mut m = BTreeMap::new();
        m.insert("write-only".to_string(), "yes".to_string());
        m.insert("consumer.expiration-time".to_string(), "soon".to_string());
        let o = TableOptions::from_map(&m, 3);
        assert_eq!(o.problems.len(), 2);
        assert!(!o.write_only);
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_millis("1 d"), Some(86_400_000));
        assert_eq!(parse_duration_millis("30min"), Some(1_800_000));
        assert_eq!(parse_duration_millis("10 s"), Some(10_000));
        assert_eq!(parse_duration_millis("250"), Some(250));
        assert_eq!(parse_duration_millis("2 hours"), Some(7_200_000));
        assert_eq!(parse_duration_millis("PT1H30M"), Some(5_400_000));
        assert_eq!(parse_duration_millis("1 fortnight"), None);
        assert_eq!(parse_duration_millis("99999999999999999 d"), None);
    }

    #[test]
    fn schema_errors_are_clear() {
        assert!(TableSchema::parse(b"[]").is_err());
        let e = TableSchema::parse(br#"{"fields":[{"id":1}]}"#).unwrap_err();
        assert!(e.to_string().contains("no name"));
    }
}
