//! `prv-synth`: writes a synthetic Paimon 0.9 warehouse (a lookup-changelog table with many
//! commits, consumers, tags, branches and optional multi-GB padding) as a directory and/or a zip,
//! fast enough for scales that driving Java Paimon would take hours to reach.
//!
//! ```text
//! prv-synth --name synth_3000 --commits 3000 --dir bench/out/wh/synth_3000 --zip bench/out/synth_3000.zip
//! ```
//!
//! Java Paimon 0.9 reads these warehouses back (`bench/java/PaimonBench.java validate`).

mod avro;
mod binrow;
mod table;
mod zipw;

use std::collections::HashSet;
use std::fs::{File, FileTimes};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, UNIX_EPOCH};

use clap::Parser;

use table::{Config, Content, Generator};

#[derive(Parser, Debug)]
#[command(about = "Writes a synthetic Paimon 0.9 warehouse (directory and/or zip)")]
struct Args {
    /// The artifact's top directory name (the warehouse folder).
    #[arg(long)]
    name: String,
    /// The table name (in database `db`).
    #[arg(long, default_value = "orders")]
    table: String,
    /// Streaming commits (each an APPEND and a COMPACT snapshot).
    #[arg(long, default_value_t = 3000)]
    commits: u32,
    #[arg(long, default_value_t = 1)]
    buckets: u32,
    /// Values of the INT partition column `part` (0: not partitioned).
    #[arg(long, default_value_t = 0)]
    partitions: u32,
    #[arg(long, default_value_t = 3)]
    consumers: u32,
    #[arg(long, default_value_t = 1)]
    tags: u32,
    #[arg(long, default_value_t = 1)]
    branches: u32,
    /// Commits on each branch after it is created from its tag.
    #[arg(long, default_value_t = 5)]
    branch_commits: u32,
    /// Total bytes of padding data files (holes: no disk space). 0: the same files, small.
    #[arg(long, default_value_t = 0)]
    padding: u64,
    /// Number of padding files (half referenced by manifests, half unreferenced).
    #[arg(long, default_value_t = 8)]
    padding_files: u32,
    #[arg(long, default_value_t = 30)]
    merge_min_count: usize,
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Commit time of the first snapshot, epoch ms.
    #[arg(long, default_value_t = 1_764_000_000_000)]
    start_millis: i64,
    /// Write the warehouse as a directory here (it must not exist).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Write the warehouse as a zip here.
    #[arg(long)]
    zip: Option<PathBuf>,
}

fn main() {
    let args = Args::parse();
    if let Err(e) = run(args) {
        eprintln!("prv-synth: {e}");
        std::process::exit(1);
    }
}

fn run(args: Args) -> std::io::Result<()> {
    let t0 = Instant::now();
    let cfg = Config {
        name: args.name.clone(),
        table: args.table.clone(),
        commits: args.commits,
        buckets: args.buckets.max(1),
        partitions: args.partitions,
        consumers: args.consumers,
        tags: args.tags.max(u32::from(args.branches > 0)),
        branches: args.branches,
        branch_commits: args.branch_commits,
        padding: args.padding,
        padding_files: args.padding_files,
        merge_min_count: args.merge_min_count.max(2),
        seed: args.seed,
        start_millis: args.start_millis,
    };
    let mut g = Generator::new(cfg);
    g.run();
    let generated = t0.elapsed();

    if let Some(dir) = &args.dir {
        if dir.exists() {
            return Err(std::io::Error::other(format!(
                "{} exists; remove it first",
                dir.display()
            )));
        }
        write_dir(dir, &g)?;
    }
    let mut zip_size = 0;
    if let Some(zip) = &args.zip {
        if let Some(parent) = zip.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut w = zipw::ZipWriter::create(zip)?;
        // padding first: every other entry then lies past it (offsets past 2 GiB)
        for pass in [true, false] {
            for f in g.files.iter().filter(|f| f.padding == pass) {
                match &f.content {
                    Content::Bytes(b) => w.add(&f.path, b, f.mtime_ms)?,
                    Content::Zeros(n) => w.add_zeros(&f.path, *n, f.mtime_ms)?,
                }
            }
        }
        zip_size = w.finish()?;
    }
    let s = &g.summary;
    println!(
        "{{\"name\":\"{}\",\"snapshots\":{},\"latest\":{},\"manifest_lists\":{},\"manifests\":{},\"metadata_bytes\":{},\"data_files\":{},\"data_bytes\":{},\"files\":{},\"zip_bytes\":{},\"generate_s\":{:.2},\"total_s\":{:.2}}}",
        args.name,
        s.snapshots,
        s.latest,
        s.manifest_lists,
        s.manifests,
        s.metadata_bytes,
        s.data_files,
        s.data_bytes,
        g.files.len(),
        zip_size,
        generated.as_secs_f64(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

fn write_dir(dir: &Path, g: &Generator) -> std::io::Result<()> {
    let mut made: HashSet<PathBuf> = HashSet::new();
    for f in &g.files {
        // artifact paths start with the warehouse name; the directory is the warehouse
        let rel = f.path.split_once('/').map(|(_, r)| r).unwrap_or(&f.path);
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            if made.insert(parent.to_path_buf()) {
                std::fs::create_dir_all(parent)?;
            }
        }
        let file = File::create(&path)?;
        match &f.content {
            Content::Bytes(b) => std::io::Write::write_all(&mut &file, b)?,
            Content::Zeros(n) => file.set_len(*n)?,
        }
        let t = UNIX_EPOCH + Duration::from_millis(f.mtime_ms.max(0) as u64);
        file.set_times(FileTimes::new().set_modified(t).set_accessed(t))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    use prv::source::{Artifact, Input, RandomAccess};

    /// A small partitioned warehouse with padding, zipped, analysed by the validator's core:
    /// every snapshot and branch is found, nothing dangles, each manifest is decoded once.
    #[test]
    fn the_core_reads_what_the_writer_writes() {
        let tmp = std::env::temp_dir().join(format!("prv-synth-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).unwrap();
        let zip = tmp.join("w.zip");
        let cfg = Config {
            name: "w".into(),
            table: "t".into(),
            commits: 40,
            buckets: 2,
            partitions: 2,
            consumers: 2,
            tags: 1,
            branches: 1,
            branch_commits: 2,
            padding: 64 << 20,
            padding_files: 4,
            merge_min_count: 30,
            seed: 7,
            start_millis: 1_764_000_000_000,
        };
        let mut g = Generator::new(cfg);
        g.run();
        let mut w = zipw::ZipWriter::create(&zip).unwrap();
        for pass in [true, false] {
            for f in g.files.iter().filter(|f| f.padding == pass) {
                match &f.content {
                    Content::Bytes(b) => w.add(&f.path, b, f.mtime_ms).unwrap(),
                    Content::Zeros(n) => w.add_zeros(&f.path, *n, f.mtime_ms).unwrap(),
                }
            }
        }
        let size = w.finish().unwrap();
        assert!(size > 64 << 20);

        let bytes: Rc<dyn RandomAccess> = Rc::new(std::fs::read(&zip).unwrap());
        let artifact = Artifact::open(
            vec![Input::Zip {
                name: "w.zip".into(),
                data: bytes,
            }],
            &prv::Limits::default(),
        )
        .unwrap();
        let report = prv::analyze(&artifact, &prv::AnalysisOptions::default(), &mut |_| {});
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["verdict"], "pass", "{json:#}");
        let tables = json["tables"].as_array().unwrap();
        assert_eq!(tables.len(), 2);
        assert_eq!(tables[0]["snapshots"].as_array().unwrap().len(), 80);
        assert_eq!(tables[0]["consumers"].as_array().unwrap().len(), 2);
        let distinct = g.summary.manifests + g.summary.manifest_lists;
        assert_eq!(
            json["stats"]["manifestsDecoded"].as_u64().unwrap(),
            distinct
        );
        // only the unreferenced padding is reported (as orphans), nothing else
        let codes: Vec<&str> = tables
            .iter()
            .flat_map(|t| t["findings"].as_array().unwrap())
            .map(|f| f["code"].as_str().unwrap())
            .collect();
        assert!(codes.iter().all(|c| *c == "orphan-file"), "{codes:?}");
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
