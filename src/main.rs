//! `paimon-recovery-validator`: the command-line front end of the core.
//!
//! A thin shell: it opens the paths, runs [`prv::analyze`] and writes the report. The report goes
//! to stdout (or `--output`); progress and messages go to stderr. Exit status: 0 no finding at or
//! above `--fail-on`, 1 there are, 2 the input could not be read at all or the usage was wrong.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use prv::findings::{Report, Severity};
use prv::source::{native, Artifact};
use prv::timeline::prefetch::ThreadedPrefetch;
use prv::{analyze, analyze_prefetched, AnalysisOptions, Limits};

/// mimalloc instead of the system allocator: glibc's malloc and free were a fifth of the CLI's
/// time when every decoded manifest entry was its own objects (BENCHMARKS.md, "Where the time
/// goes"); with the flat entries it is still 1.18× faster on the deep headline table, the same
/// on a wide one, for 10–22 MiB more peak memory (BENCHMARKS.md, "The allocator, measured
/// again").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "paimon-recovery-validator",
    version,
    args_override_self = true,
    about = "Checks a Paimon warehouse artifact for lost changelog and unsafe consumer positions.",
    long_about = "Reconstructs every Apache Paimon table's snapshot timeline from a warehouse artifact \
(a .zip, zips inside zips, or a directory) and flags lost changelog (an APPEND snapshot whose \
COMPACT half never became durable) and unsafe consumer positions. The timeline is built from \
metadata alone; row-level evidence (the keys whose changelog was lost, Ray Data checkpoints \
ahead of the commit) reads only the data and changelog files those findings need (--no-rows \
skips it)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Analyse one or more artifacts and print the report.
    Check(CheckArgs),
}

#[derive(clap::Args)]
struct CheckArgs {
    /// A .zip (nested zips inside it are opened too) or a directory. Several paths are analysed
    /// together, each under its own name.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,

    /// Write the report to FILE instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,

    /// Exit with status 1 when a finding is at or above this severity.
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    fail_on: FailOn,

    /// The clock for age-based findings (a stale consumer, a young orphan file), as RFC 3339
    /// (`2026-11-30T08:00:00Z`) or epoch milliseconds. Default: the artifact's capture time,
    /// i.e. the newest time recorded in it (snapshot commit times and file modification times),
    /// because an artifact is usually examined long after it was captured. Pass the current time
    /// to judge a live warehouse.
    #[arg(long, value_name = "RFC3339|EPOCH_MS", value_parser = parse_now)]
    now: Option<i64>,

    /// Raise or lower a resource limit, e.g. `--limit max-entry-bytes=512M` (repeatable; the
    /// limits and their defaults are listed by --help).
    #[arg(long = "limit", value_name = "NAME=VALUE", long_help = limit_help())]
    limits: Vec<String>,

    /// Pair a Spark streaming checkpoint with the table it reads and, optionally, the consumer it
    /// uses: `<checkpoint dir>=<table path>[#<consumer id>]`, paths as the report shows them (a
    /// branch as `<table path>/branch/branch-<name>`). Repeatable. A checkpoint records neither,
    /// so without this flag a checkpoint is paired only where the artifact leaves no choice: a
    /// consumer named like the checkpoint directory, or the only table and its only consumer.
    #[arg(long = "spark-checkpoint", value_name = "DIR=TABLE[#CONSUMER]")]
    spark_checkpoints: Vec<prv::spark::SparkPairing>,

    /// Pair a Ray Data checkpoint directory with the table its job writes and, optionally, the
    /// id column (`CheckpointConfig.id_column`): `<checkpoint dir>=<table path>[#<id column>]`,
    /// paths as the report shows them. Repeatable. Without this flag a checkpoint is paired only
    /// where the artifact leaves no choice: the only table with a column named like the
    /// checkpoint files' column, or the artifact's only table.
    #[arg(long = "ray-checkpoint", value_name = "DIR=TABLE[#ID_COLUMN]")]
    ray_checkpoints: Vec<prv::ray::RayPairing>,

    /// Do not read data or changelog files: no row-level evidence (`rows` on lost-changelog
    /// findings) and no Ray Data checkpoint checks. The analysis then reads metadata only.
    #[arg(long)]
    no_rows: bool,

    /// Threads: the analysis and N-1 helpers that decode manifest lists and manifests ahead of
    /// it. Default: the machine's cores, at most 4. The report is the same for every N.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,

    /// Do not show a progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Threads used when `--threads` is not given: the cores, at most this many. The helpers only
/// decode `manifest/` (two thirds of the work); the analysis thread's own share bounds what more
/// of them can gain (measured on two cores only: BENCHMARKS.md).
const DEFAULT_MAX_THREADS: usize = 4;

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
    Markdown,
}

#[derive(Clone, Copy, ValueEnum)]
enum FailOn {
    Error,
    Warning,
    Never,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let Command::Check(args) = cli.command;
    // A panic is a bug; it must still not look like a verdict.
    match std::panic::catch_unwind(|| run(&args)) {
        Ok(code) => code,
        Err(_) => {
            eprintln!("paimon-recovery-validator: internal error (a bug: please report it with the artifact's listing)");
            ExitCode::from(2)
        }
    }
}

fn run(args: &CheckArgs) -> ExitCode {
    let mut limits = Limits::default();
    for l in &args.limits {
        if let Err(e) = limits.set_from_arg(l) {
            eprintln!("paimon-recovery-validator: --limit {l}: {e}");
            return ExitCode::from(2);
        }
    }
    let threads = args.threads.map_or_else(
        || {
            std::thread::available_parallelism()
                .map_or(1, usize::from)
                .min(DEFAULT_MAX_THREADS)
        },
        usize::from,
    );
    // Helpers start first and open the input in parallel with the analysis; each opens the
    // same paths again: its own view of the input, whose reads count nowhere (the analysis
    // counts what it takes). Only the files a helper decodes: on a wide table the rest of a
    // second listing was a tenth of the CLI's memory, and on a folder a second `stat` of every
    // file ran beside the analysis.
    let candidate = prv::timeline::prefetch::is_candidate;
    let prefetch = (threads > 1).then(|| {
        let paths = args.paths.clone();
        ThreadedPrefetch::start(threads - 1, &limits, move |limits| {
            let walk = native::FolderWalk {
                threads: 1,
                keep: Some(candidate),
            };
            let inputs = paths
                .iter()
                .map(|p| native::open_input_with(p, limits, walk))
                .collect::<prv::Result<Vec<_>>>()?;
            Artifact::open_only(inputs, limits, candidate)
        })
    });
    // A folder's directories are listed, and their files `stat`ed, on every thread.
    let walk = native::FolderWalk {
        threads,
        keep: None,
    };
    let mut inputs = Vec::new();
    for path in &args.paths {
        match native::open_input_with(path, &limits, walk) {
            Ok(input) => inputs.push(input),
            Err(e) => {
                eprintln!("paimon-recovery-validator: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let artifact = match Artifact::open(inputs, &limits) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("paimon-recovery-validator: cannot read the input: {e}");
            return ExitCode::from(2);
        }
    };
    let mut problems = prv::spark::pairing_problems(&artifact, &args.spark_checkpoints);
    problems.extend(prv::ray::pairing_problems(&artifact, &args.ray_checkpoints));
    if !problems.is_empty() {
        for p in problems {
            eprintln!("paimon-recovery-validator: {p}");
        }
        return ExitCode::from(2);
    }
    let options = AnalysisOptions {
        now_millis: args.now,
        limits,
        spark_pairings: args.spark_checkpoints.clone(),
        ray_pairings: args.ray_checkpoints.clone(),
        skip_rows: args.no_rows,
    };
    let show_progress = !args.quiet && std::io::stderr().is_terminal();
    let bar = show_progress.then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        bar
    });
    let mut on_progress = |p: &prv::Progress| {
        if let Some(bar) = &bar {
            bar.set_message(p.to_string());
            bar.tick();
        }
    };
    let report = match prefetch {
        Some(prefetch) => {
            let report = analyze_prefetched(&artifact, &options, &prefetch, &mut on_progress);
            // Stops the helpers now (files no snapshot references may be left): rendering
            // the report should have the machine to itself.
            drop(prefetch);
            report
        }
        None => analyze(&artifact, &options, &mut on_progress),
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }

    let rendered = match args.format {
        Format::Text => prv::report::text::render(&report),
        Format::Json => prv::report::json::render(&report),
        Format::Markdown => prv::report::markdown::render(&report),
    };
    let written = match &args.output {
        Some(path) => std::fs::write(path, rendered.as_bytes()),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(rendered.as_bytes())
                .and_then(|()| out.flush())
        }
    };
    if let Err(e) = written {
        // A closed pipe (`| head`) is not a failure of the analysis.
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("paimon-recovery-validator: cannot write the report: {e}");
            return ExitCode::from(2);
        }
    }
    if input_unreadable(&report) {
        return ExitCode::from(2);
    }
    let threshold = match args.fail_on {
        FailOn::Error => Some(Severity::Error),
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Never => None,
    };
    let failing = threshold.is_some_and(|t| report.all_findings().any(|(_, f)| f.severity >= t));
    if failing {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `--help` for `--limit`: every limit with its default and meaning.
fn limit_help() -> String {
    format!(
        "Raise or lower a resource limit, e.g. `--limit max-entry-bytes=512M` (VALUE may end in \
K, M or G; repeatable). Going past max-entries, max-total-entries or max-nesting ends the run \
with exit status 2 and the limit named; going past any other limit makes the file concerned \
an unreadable-file finding naming the limit, and the rest is analysed.\n\n\
Limits (default):\n{}",
        prv::limits::help_table()
    )
}

/// The input could not be read at all: nothing was listed.
fn input_unreadable(report: &Report) -> bool {
    report.input.files == 0 && report.tables.is_empty()
}

/// Parses `--now`: epoch milliseconds, or RFC 3339 (`2026-11-30T08:00:00Z`,
/// `2026-11-30T09:00:00.5+01:00`, date-only `2026-11-30`).
fn parse_now(s: &str) -> Result<i64, String> {
    let s = s.trim();
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s
            .parse::<i64>()
            .map_err(|_| format!("{s} is too large for epoch milliseconds"));
    }
    prv::time::parse_rfc3339(s).ok_or_else(|| {
        format!("{s:?} is neither epoch milliseconds nor RFC 3339 (e.g. 2026-11-30T08:00:00Z)")
    })
}
