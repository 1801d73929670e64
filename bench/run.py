#!/usr/bin/env python3
"""`make bench`: generates the benchmark warehouses (once; cached in bench/out/), then measures,
side by side in one run, as whole processes:

  * the CLI (`paimon-recovery-validator check <zip> --format json`) on every input, with its
    default threads (the cores) and with `--threads 1` (the analysis alone, as the page runs it);
  * Java Paimon 0.9's own readers walking the same table's directory (bench/java/PaimonBench.java
    `walk`: list the snapshots, read every manifest list and manifest once, read the consumers);
  * pypaimon 2.1 doing the same walk on the pypaimon-written warehouse (bench/py/pypaimon_bench.py);
  * on the wide tables (hundreds of thousands of live data files, issue 23): the CLI on the
    warehouse directory too, and the floor of reading the zip's metadata (`unzip -p` of every
    entry in `snapshot/`, `schema/` and `manifest/`, inflated to nothing);
  * the page (dist/ in Chromium, bench/page.mjs), timed by the page's own performance measures.

Runs are interleaved in rounds: each round is one `hyperfine -N --runs 1` invocation that runs
every command once (and then the page once per input), so a load change on this shared machine
hits all commands alike; medians over the rounds are reported, with ratios from the same run. Prints one table, writes bench/out/results.{json,md}. Never part of `make test`.

    python3 bench/run.py [--rounds 7] [--java-rounds 3] [--page-rounds 3] [--skip-java]
                         [--skip-page] [--skip-py] [--only NAME,...] [--regen] [--no-build]
                         [--page-warm]

The page is the built site in dist/ (PRV_BENCH_DIST overrides it); the CLI is
target/release/paimon-recovery-validator (PRV_BENCH_CLI overrides it, with --no-build).
"""
import argparse
import fcntl
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, 'bench')
OUT = os.path.join(BENCH, 'out')
WH = os.path.join(OUT, 'wh')
VENV = os.path.join(OUT, 'venv')
VPY = os.path.join(VENV, 'bin', 'python')
CLI = os.environ.get('PRV_BENCH_CLI',
                     os.path.join(ROOT, 'target', 'release', 'paimon-recovery-validator'))
SYNTH = os.environ.get('PRV_BENCH_SYNTH', os.path.join(ROOT, 'target', 'release', 'prv-synth'))
GENERATOR = os.path.join(ROOT, 'tests', 'fixtures', 'generator')
CACHE = os.environ.get('PAIMON_FIXTURES_CACHE',
                       os.path.join(os.path.expanduser('~'), '.cache', 'paimon-fixtures'))
JAVA_CLASSES = os.path.join(OUT, 'java-classes')
JAVA_SRC = os.path.join(BENCH, 'java', 'PaimonBench.java')
CP = JAVA_CLASSES + ':' + os.path.join(CACHE, 'lib', '*')
PAD_BYTES = 2_415_919_104  # 2.25 GiB: every metadata entry of the padded zip lies past 2 GiB

# name, how it is made, commits, extra synth args, which walks compare against the CLI
DATASETS = [
    dict(name='java09_lookup_3000', kind='java', commits=3000, walk='java', headline=True),
    dict(name='synth_lookup_1500', kind='synth', commits=1500, args=[]),
    dict(name='synth_lookup_3000', kind='synth', commits=3000, args=[], walk='java'),
    dict(name='synth_lookup_6000', kind='synth', commits=6000, args=[]),
    dict(name='synth_meta20', kind='synth', commits=1800, args=['--buckets', '2', '--consumers', '50',
                                                              '--tags', '4', '--branches', '4']),
    dict(name='synth_meta20_pad2g', kind='synth', commits=1800,
         args=['--buckets', '2', '--consumers', '50', '--tags', '4', '--branches', '4',
               '--padding', str(PAD_BYTES)]),
    dict(name='pypaimon21_events_300', kind='pypaimon', commits=300, walk='pypaimon'),
    # Wide tables (issue 23): 32 partitions x 32 buckets, 200 commits (410 snapshots, 1,654
    # manifests, 1.08M manifest entries, 472k data files); the same twice as wide (64 partitions,
    # 944k data files); a Java-written one with 256 buckets. Each also as a directory.
    dict(name='synth_wide_p32', kind='synth', commits=200, wide=True, walk='java',
         args=['--buckets', '32', '--partitions', '32']),
    dict(name='synth_wide_p64', kind='synth', commits=200, wide=True, walk='java',
         args=['--buckets', '32', '--partitions', '64']),
    dict(name='java09_wide_256', kind='java', commits=400, buckets=256, wide=True, walk='java'),
]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def sh(cmd, **kw):
    log('$ ' + ' '.join(cmd))
    return subprocess.run(cmd, check=True, **kw)


# ------------------------------------------------------------------------------------- set-up

def setup(args):
    os.makedirs(WH, exist_ok=True)
    if not os.path.exists(VPY):
        sh([sys.executable, '-m', 'venv', VENV])
    if subprocess.run([VPY, '-c', 'import pypaimon, fastavro'], capture_output=True).returncode:
        sh([VPY, '-m', 'pip', 'install', '-q', 'pypaimon==2.1.0', 'fastavro'])
    # the jars of the fixture generator (PyPI sdists: pypaimon 0.2.0 bundles Paimon 0.9.0)
    sh([VPY, '-c', f'import sys; sys.path.insert(0, {GENERATOR!r}); '
                   'import make_warehouses as m; m.ensure_jars()'])
    stamp = os.path.join(JAVA_CLASSES, 'PaimonBench.class')
    if not os.path.exists(stamp) or os.path.getmtime(stamp) < os.path.getmtime(JAVA_SRC):
        os.makedirs(JAVA_CLASSES, exist_ok=True)
        sh(['javac', '-cp', os.path.join(CACHE, 'lib', '*'), '-d', JAVA_CLASSES, JAVA_SRC])
    if not args.no_build:
        sh(['cargo', 'build', '--release', '--quiet', '-p', 'paimon-recovery-validator',
            '--bin', 'paimon-recovery-validator'], cwd=ROOT)
        sh(['cargo', 'build', '--release', '--quiet', '-p', 'prv-bench'], cwd=ROOT)


def java(*a, **kw):
    tmp = os.path.join(OUT, 'tmp')
    os.makedirs(tmp, exist_ok=True)
    return ['java', f'-Djava.io.tmpdir={tmp}', '-cp', CP, 'PaimonBench', *a]


def table_dir(d):
    """The table directory inside a dataset's warehouse directory."""
    base = os.path.join(WH, d['name'], 'db.db')
    return os.path.join(base, os.listdir(base)[0])


def zip_path(d):
    return os.path.join(OUT, d['name'] + '.zip')


def make(d, regen):
    name, wh, z = d['name'], os.path.join(WH, d['name']), zip_path(d)
    if os.path.exists(z) and os.path.isdir(wh) and not regen:
        return
    shutil.rmtree(wh, ignore_errors=True)
    if os.path.exists(z):
        os.remove(z)
    t0 = time.time()
    if d['kind'] == 'java':
        # real Java Paimon 0.9: streaming commits of a lookup table (APPEND + COMPACT each)
        sh(java('write', wh, 'orders', str(d['commits']), str(d.get('buckets', 1)), '0'),
           stdout=subprocess.DEVNULL)
    elif d['kind'] == 'pypaimon':
        sh([VPY, os.path.join(BENCH, 'py', 'pypaimon_bench.py'), 'write', wh, str(d['commits'])],
           stdout=subprocess.DEVNULL)
    else:
        sh([SYNTH, '--name', name, '--commits', str(d['commits']), *d['args'], '--dir', wh,
            '--zip', z], stdout=subprocess.DEVNULL)
    if d['kind'] != 'synth':
        # zipped as CI artifacts are: `zip -r` of the warehouse folder
        sh(['zip', '-q', '-r', z, name], cwd=WH)
    log(f'  {name}: made in {time.time() - t0:.0f} s')


def validate(d, regen):
    """Java Paimon 0.9 reads a synthetic warehouse back (snapshots, manifest lists, manifests,
    plan() at every snapshot, consumers); the result is kept next to the warehouse."""
    marker = os.path.join(WH, d['name'] + '.validated')
    if os.path.exists(marker) and not regen:
        return open(marker).read().strip()
    p = subprocess.run(java('validate', table_dir(d)), capture_output=True, text=True)
    lines = [l for l in (p.stdout + p.stderr).splitlines() if not l.startswith('SLF4J')]
    if p.returncode != 0:
        raise SystemExit(f'Java Paimon 0.9 rejects {d["name"]}:\n' + '\n'.join(lines[-20:]))
    line = next(l for l in lines if l.startswith('VALID'))
    open(marker, 'w').write(line + '\n')
    return line


# ------------------------------------------------------------------------------------ measure

def hyperfine_round(named_cmds):
    """Runs each command once, one after the other, under hyperfine (-N: no shell, whole
    processes); returns the wall times in seconds, in order."""
    if not named_cmds:
        return []
    out = os.path.join(OUT, 'hyperfine-round.json')
    cmd = ['hyperfine', '-N', '-i', '--runs', '1', '--style', 'none', '--export-json', out]
    for name, c in named_cmds:
        cmd += ['--command-name', name, ' '.join(shlex.quote(x) for x in c)]
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise SystemExit('hyperfine failed: ' + p.stderr[-2000:])
    res = json.load(open(out))['results']
    for r, (name, _) in zip(res, named_cmds):
        if any(code not in (0, 1) for code in r.get('exit_codes', [0])):
            raise SystemExit(f'{name} failed (exit codes {r["exit_codes"]})')
    # wall time, and CPU time (user + system) as hyperfine measured them
    return [(r['times'][0], r['user'] + r['system']) for r in res]


def cli_cmd(d, threads=None):
    """The CLI on `d`; `threads` None is its default (the cores, at most 4)."""
    cmd = [CLI, 'check', zip_path(d), '--format', 'json']
    return cmd + ['--threads', str(threads)] if threads else cmd


def cli_dir_cmd(d):
    """The CLI on `d`'s warehouse directory (the wide tables)."""
    return [CLI, 'check', os.path.join(WH, d['name']), '--format', 'json']


def floor_cmd(d):
    """The floor of any analysis of `d`'s zip: inflating every metadata entry (`unzip -p`)."""
    return ['unzip', '-qq', '-p', zip_path(d), '*/snapshot/*', '*/schema/*', '*/manifest/*']


def walk_cmd(d):
    if d.get('walk') == 'java':
        return java('walk', table_dir(d))
    return [VPY, os.path.join(BENCH, 'py', 'pypaimon_bench.py'), 'walk', table_dir(d)]


def page_once(d, warm=False):
    out = os.path.join(OUT, 'page-run.json')
    p = subprocess.run(['node', os.path.join(BENCH, 'page.mjs'), '--runs', '1', '--out', out,
                        *(['--warm'] if warm else []), zip_path(d)], capture_output=True,
                       text=True)
    log('\n'.join(l for l in p.stderr.splitlines() if l.startswith('  page ')))
    if p.returncode != 0:
        return {'ready': False, 'reason': p.stderr.strip().splitlines()[-1:]}
    r = json.load(open(out))
    if not r.get('ready'):
        return r
    return {'ready': True, **next(iter(r['results'].values()))}


def peak_rss_kib(cmd):
    p = subprocess.run(['/usr/bin/time', '-f', '%M', *cmd], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    return int(p.stderr.strip().splitlines()[-1])


def warm(path):
    """Reads every file once so that no command pays for a cold page cache."""
    n = 0
    if os.path.isfile(path):
        with open(path, 'rb') as f:
            while f.read(1 << 24):
                pass
        return
    for dirpath, _, files in os.walk(path):
        for f in files:
            p = os.path.join(dirpath, f)
            if os.path.getsize(p) < (64 << 20):
                with open(p, 'rb') as fh:
                    fh.read()
                n += 1


def fmt_s(x):
    return '—' if x is None else (f'{x:.2f} s' if x >= 1 else f'{x * 1000:.0f} ms')


def fmt_b(n):
    for unit, size in (('GB', 1e9), ('MB', 1e6), ('KB', 1e3)):
        if n >= size:
            return f'{n / size:.1f} {unit}'
    return f'{n} B'


def machine():
    cpu = ''
    try:
        for line in open('/proc/cpuinfo'):
            if line.startswith('model name'):
                cpu = line.split(':', 1)[1].strip()
                break
    except OSError:
        pass
    mem = 0
    try:
        mem = int(next(l for l in open('/proc/meminfo') if l.startswith('MemTotal')).split()[1])
    except (OSError, StopIteration):
        pass

    def ver(cmd):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True)
            return (p.stdout + p.stderr).strip().splitlines()[0]
        except (OSError, IndexError):
            return '?'
    return {
        'cpu': cpu, 'cores': os.cpu_count(), 'mem_gib': round(mem / 2 ** 20, 1),
        'kernel': platform.release(), 'load_start': os.getloadavg(),
        'rustc': ver(['rustc', '--version']), 'java': ver(['java', '-version']),
        'python': platform.python_version(), 'chromium': ver(['/usr/bin/chromium', '--version']),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--rounds', type=int, default=7, help='CLI runs per input (interleaved)')
    ap.add_argument('--java-rounds', type=int, default=3)
    ap.add_argument('--page-rounds', type=int, default=3)
    ap.add_argument('--skip-java', action='store_true')
    ap.add_argument('--skip-py', action='store_true')
    ap.add_argument('--skip-page', action='store_true')
    ap.add_argument('--page-warm', action='store_true',
                    help='time a second analysis in the same page (bench/page.mjs --warm)')
    ap.add_argument('--skip-validate', action='store_true')
    ap.add_argument('--only', default='', help='comma-separated dataset names')
    ap.add_argument('--regen', action='store_true', help='regenerate the warehouses')
    ap.add_argument('--no-build', action='store_true',
                    help='use the binaries as built (PRV_BENCH_CLI, PRV_BENCH_SYNTH override them)')
    args = ap.parse_args()

    # One run at a time: two at once would time each other (both use every core) and write the
    # same files in bench/out/.
    os.makedirs(OUT, exist_ok=True)
    lock = open(os.path.join(OUT, '.run.lock'), 'a+')
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip() or 'another process'
        raise SystemExit(f'bench/run.py: another run is in progress ({holder}); '
                         'its timings and bench/out/ would be mixed with this one\'s. Wait for it.')
    lock.truncate(0)
    lock.write(f'pid {os.getpid()}, started {time.strftime("%H:%M:%S")}\n')
    lock.flush()

    setup(args)
    only = set(filter(None, args.only.split(',')))
    datasets = [d for d in DATASETS if not only or d['name'] in only]
    info = {}
    for d in datasets:
        make(d, args.regen)
        if d['kind'] == 'synth' and not args.skip_validate:
            info[d['name']] = validate(d, args.regen)
            log('  ' + info[d['name']][:160] + ('…' if len(info[d['name']]) > 160 else ''))

    # one report per input: stats, snapshot counts, peak RSS
    rows = {}
    for d in datasets:
        z = zip_path(d)
        warm(z)
        p = subprocess.run(cli_cmd(d), capture_output=True, text=True)
        rep = json.loads(p.stdout)
        zf = zipfile.ZipFile(z)
        names = [i.filename for i in zf.infolist() if '/manifest/' in i.filename
                 and not i.filename.endswith('/')]
        data_files = sum(1 for i in zf.infolist() if '/bucket-' in i.filename
                         and not i.filename.endswith('/')) if d.get('wide') else None
        rows[d['name']] = dict(
            data_files=data_files,
            cli_dir_rss_kib=peak_rss_kib(cli_dir_cmd(d)) if d.get('wide') else None,
            clidir=[], clidir_cpu=[], floor=[], floor_cpu=[],
            snapshots=sum(len(t['snapshots']) for t in rep['tables']),
            distinct=len(names),
            decoded=rep['stats']['manifestsDecoded'],
            hits=rep['stats']['manifestCacheHits'],
            bytes=os.path.getsize(z),
            verdict=rep['verdict'],
            cli_rss_kib=peak_rss_kib(cli_cmd(d)),
            cli=[], walk=[], cli_cpu=[], walk_cpu=[], cli1=[], cli1_cpu=[], page=[], page_wall=[], page_peak=[], page_private=[],
            page_base=[], page_analysis_peak=[], page_start=[], page_warm=[], page_core=[], page_read=[],
            page_reply=[], page_wasm=[],
            page_source=None,
        )
        if d.get('walk'):
            warm(table_dir(d))

    # interleaved rounds
    page_ready = not args.skip_page
    page_reason = 'skipped (--skip-page)' if args.skip_page else None
    rounds = max(args.rounds, args.java_rounds, args.page_rounds)
    for r in range(rounds):
        log(f'round {r + 1}/{rounds} (load {os.getloadavg()[0]:.1f})')
        # one hyperfine invocation per round: every command once, interleaved
        jobs = []
        for d in datasets:
            if r < args.rounds:
                jobs.append((d, 'cli', cli_cmd(d)))
                # the analysis alone on one core, as the page runs it (no helper threads)
                jobs.append((d, 'cli1', cli_cmd(d, threads=1)))
                if d.get('wide'):
                    jobs.append((d, 'clidir', cli_dir_cmd(d)))
                    jobs.append((d, 'floor', floor_cmd(d)))
            w = d.get('walk')
            if w and r < args.java_rounds and not (w == 'java' and args.skip_java) \
                    and not (w == 'pypaimon' and args.skip_py):
                jobs.append((d, 'walk', walk_cmd(d)))
        times = hyperfine_round([(f"{d['name']}:{k}", c) for d, k, c in jobs])
        for (d, k, _), (wall, cpu) in zip(jobs, times):
            rows[d['name']][k].append(wall)
            rows[d['name']][k + '_cpu'].append(cpu)
        for d in datasets:
            row = rows[d['name']]
            if page_ready and r < args.page_rounds:
                res = page_once(d, args.page_warm)
                if not res.get('ready'):
                    page_ready, page_reason = False, res.get('reason')
                else:
                    row['page'].append(res['medianMs'] / 1000)
                    row['page_wall'].append(res['wallMedianMs'] / 1000)
                    row['page_peak'].append(res['peakBytes'])
                    if res.get('privatePeakBytes'):
                        row['page_private'].append(res['privatePeakBytes'])
                    row['page_base'].append(res.get('baselineBytes', 0))
                    row['page_analysis_peak'].append(res.get('analysisPeakBytes', 0))
                    # the worker's phases (bench/page.mjs, from web/src/blob.rs's notes)
                    for key, field in (('page_start', 'startupMedianMs'),
                                       ('page_warm', 'warmMedianMs'),
                                       ('page_core', 'coreMedianMs'),
                                       ('page_read', 'readMedianMs'),
                                       ('page_reply', 'replyMedianMs')):
                        if res.get(field) is not None:
                            row[key].append(res[field] / 1000)
                    if res.get('wasmMemoryBytes'):
                        row['page_wasm'].append(res['wasmMemoryBytes'])
                    row['page_source'] = res['source']

    med = lambda xs: statistics.median(xs) if xs else None  # noqa: E731
    results = {'machine': machine(), 'validated': info, 'page': page_reason or 'ok', 'rows': {}}
    results['machine']['load_end'] = os.getloadavg()
    header = ['input', 'snapshots', 'manifests', 'bytes', 'CLI median', 'CLI 1 thread', 'walk median',
              'walk/CLI', 'page median', 'page/CLI', 'page/CLI 1 thread', 'peak memory',
              'decoded/distinct (hits)']
    table = []
    for d in datasets:
        row = rows[d['name']]
        cli, walk, page = med(row['cli']), med(row['walk']), med(row['page'])
        cli1 = med(row['cli1'])
        row.update(cli_median=cli, walk_median=walk, page_median=page, cli1_median=cli1,
                   page_wall_median=med(row['page_wall']),
                   cli_cpu_median=med(row['cli_cpu']), walk_cpu_median=med(row['walk_cpu']))
        walker = {'java': 'Java 0.9', 'pypaimon': 'pypaimon 2.1'}.get(d.get('walk'), '')
        peak = f'CLI {row["cli_rss_kib"] / 1024:.0f} MiB'
        if row['page_private']:
            peak += f', page {max(row["page_private"]) / 2 ** 20:.0f} MiB private'
        if row['page_peak']:
            peak += (f', {max(row["page_peak"]) / 2 ** 20:.0f} MiB RSS'
                     f' (+{(max(row["page_peak"]) - min(row["page_base"])) / 2 ** 20:.0f})')
        table.append([
            d['name'], str(row['snapshots']), str(row['distinct']), fmt_b(row['bytes']), fmt_s(cli),
            fmt_s(cli1) if cli1 else '—',
            (f'{fmt_s(walk)} ({walker})' if walk else '—'),
            (f'{walk / cli:.1f}x' if walk and cli else '—'),
            fmt_s(page) if page else '—',
            (f'{page / cli:.2f}' if page and cli else '—'),
            (f'{page / cli1:.2f}' if page and cli1 else '—'),
            peak, f'{row["decoded"]}/{row["distinct"]} ({row["hits"]})',
        ])
        results['rows'][d['name']] = row

    # the wide tables (issue 23): zip and directory, the floor, memory per data file
    wide_header = ['input', 'data files', 'CLI zip', 'CLI dir', 'dir/zip', 'walk', 'walk/CLI',
                   'floor (unzip -p)', 'CLI/floor', 'peak zip', 'peak dir', 'bytes per data file']
    wide = []
    for d in datasets:
        row = rows[d['name']]
        if not d.get('wide'):
            continue
        cdir, floor = med(row['clidir']), med(row['floor'])
        cli, walk = row['cli_median'], row['walk_median']
        per_file = row['cli_rss_kib'] * 1024 / row['data_files'] if row['data_files'] else None
        row.update(clidir_median=cdir, floor_median=floor, bytes_per_file=per_file)
        wide.append([
            d['name'], str(row['data_files']), fmt_s(cli), fmt_s(cdir),
            f'{cdir / cli:.2f}' if cdir and cli else '—', fmt_s(walk),
            f'{walk / cli:.1f}x' if walk and cli else '—', fmt_s(floor),
            f'{cli / floor:.1f}' if cli and floor else '—',
            f'{row["cli_rss_kib"] / 1024:.0f} MiB', f'{row["cli_dir_rss_kib"] / 1024:.0f} MiB',
            f'{per_file:.0f}' if per_file else '—',
        ])

    def ratio(a, b, key):
        x, y = rows.get(a, {}).get(key), rows.get(b, {}).get(key)
        return x / y if x and y else None
    targets = []
    head = next((d for d in datasets if d.get('headline')), None)
    if head:
        r = rows[head['name']]
        x = r['walk_median'] / r['cli_median'] if r['walk_median'] else None
        targets.append(('Java walk / CLI on the 3,000-commit lookup table >= 30', x, x and x >= 30))
        c = r['walk_cpu_median'] / r['cli_cpu_median'] if r['walk_cpu_median'] else None
        targets.append(('  (the same in CPU time, user + system: informational)', c, c and c >= 30))
    x = ratio('synth_meta20_pad2g', 'synth_meta20', 'cli_median')
    targets.append(('CLI: 2.25 GiB padded / unpadded <= 1.2', x, x and x <= 1.2))
    x = ratio('synth_meta20_pad2g', 'synth_meta20', 'page_median')
    targets.append(('page: 2.25 GiB padded / unpadded <= 1.2', x, x and x <= 1.2))
    # the tab's private memory (Chrome's "memory footprint"), and its whole RSS with the shared
    # pages of Chromium's own code
    priv = [max(rows[n]['page_private']) / 2 ** 20 for n in rows if rows[n]['page_private']]
    targets.append(('page peak private memory (renderer RssAnon) < 300 MiB, MiB',
                    max(priv) if priv else None, priv and max(priv) < 300))
    peaks = [max(rows[n]['page_peak']) / 2 ** 20 for n in rows if rows[n]['page_peak']]
    targets.append(('  (renderer RSS with shared pages < 300 MiB: informational)',
                    max(peaks) if peaks else None, peaks and max(peaks) < 300))
    ap = [max(rows[n]['page_analysis_peak']) / 2 ** 20 for n in rows if rows[n]['page_analysis_peak']]
    targets.append(('  (renderer RSS until the worker is done, before rendering: informational)',
                    max(ap) if ap else None, ap and max(ap) < 300))
    pr = [rows[n]['page_median'] / rows[n]['cli_median'] for n in rows if rows[n]['page_median']]
    targets.append(('page / CLI <= 2 (worst input)', max(pr) if pr else None, pr and max(pr) <= 2))
    pr1 = [rows[n]['page_median'] / rows[n]['cli1_median'] for n in rows
           if rows[n]['page_median'] and rows[n]['cli1_median']]
    targets.append(('  (page / CLI --threads 1, both on one core: informational, worst input)',
                    max(pr1) if pr1 else None, pr1 and max(pr1) <= 2))
    x = ratio('synth_lookup_3000', 'synth_lookup_1500', 'cli_median')
    targets.append(('CLI: 3,000 / 1,500 commits <= 2.2', x, x and x <= 2.2))
    x = ratio('synth_lookup_6000', 'synth_lookup_3000', 'cli_median')
    targets.append(('CLI: 6,000 / 3,000 commits <= 2.2', x, x and x <= 2.2))
    if 'synth_wide_p32' in rows:
        r = rows['synth_wide_p32']
        x = r['walk_median'] / r['cli_median'] if r['walk_median'] else None
        targets.append(('wide 472k files: Java walk / CLI on the zip >= 8', x, x and x >= 8))
        x = r['cli_median'] / r['floor_median'] if r['floor_median'] else None
        targets.append(('wide 472k files: CLI on the zip / unzip -p floor <= 3', x, x and x <= 3))
        x = r['clidir_median'] / r['cli_median'] if r['clidir_median'] else None
        targets.append(('wide 472k files: CLI directory / zip <= 1.5', x, x and x <= 1.5))
        x = r['bytes_per_file']
        targets.append(('wide 472k files: CLI peak RSS per data file <= 400 bytes', x, x and x <= 400))
    x = ratio('synth_wide_p64', 'synth_wide_p32', 'cli_median')
    targets.append(('wide: twice the files (p64 / p32), CLI time <= 2.2', x, x and x <= 2.2))
    x = ratio('synth_wide_p64', 'synth_wide_p32', 'cli_rss_kib')
    targets.append(('wide: twice the files (p64 / p32), CLI peak RSS <= 2.2', x, x and x <= 2.2))
    ok = all(rows[n]['decoded'] == rows[n]['distinct'] for n in rows)
    targets.append(('each manifest decoded exactly once (decoded == distinct)', None, ok))
    results['targets'] = [dict(target=t, value=v, met=bool(m)) for t, v, m in targets]

    # where the page's time and memory go, per input (medians over the page runs)
    breakdown_header = ['input', 'worker start', 'request -> done', 'core (reads)',
                        'report out', 'wasm memory', 'renderer: before / analysis / peak']
    breakdown = []
    for d in datasets:
        row = rows[d['name']]
        if not row['page']:
            continue
        row.update(page_start_median=med(row['page_start']), page_core_median=med(row['page_core']),
                   page_warm_median=med(row.get('page_warm', [])),
                   page_read_median=med(row['page_read']),
                   page_reply_median=med(row['page_reply']))
        mib = lambda b: f'{b / 2 ** 20:.0f}'  # noqa: E731
        breakdown.append([
            d['name'],
            fmt_s(row['page_start_median']) + (
                f' at page load, then {fmt_s(row["page_warm_median"])} warm-up'
                if row['page_warm_median'] is not None else ''),
            fmt_s(row['page_median']),
            (f'{fmt_s(row["page_core_median"])} ({fmt_s(row["page_read_median"])})'
             if row['page_core'] else '—'),
            fmt_s(row['page_reply_median']),
            f'{mib(max(row["page_wasm"]))} MiB' if row['page_wasm'] else '—',
            f'{mib(min(row["page_base"]))} / {mib(max(row["page_analysis_peak"]))} / '
            f'{mib(max(row["page_peak"]))} MiB',
        ])

    widths = [max(len(h), *(len(r[i]) for r in table)) for i, h in enumerate(header)]
    line = lambda cells: '  '.join(c.ljust(w) for c, w in zip(cells, widths))  # noqa: E731
    md = ['| ' + ' | '.join(header) + ' |', '|' + '---|' * len(header)]
    md += ['| ' + ' | '.join(r) + ' |' for r in table]
    print(line(header))
    print('  '.join('-' * w for w in widths))
    for r in table:
        print(line(r))
    if breakdown:
        bw = [max(len(h), *(len(r[i]) for r in breakdown)) for i, h in enumerate(breakdown_header)]
        print()
        print('  '.join(c.ljust(w) for c, w in zip(breakdown_header, bw)))
        print('  '.join('-' * w for w in bw))
        for r in breakdown:
            print('  '.join(c.ljust(w) for c, w in zip(r, bw)))
        md += ['', '| ' + ' | '.join(breakdown_header) + ' |', '|' + '---|' * len(breakdown_header)]
        md += ['| ' + ' | '.join(r) + ' |' for r in breakdown]
    if wide:
        ww = [max(len(h), *(len(r[i]) for r in wide)) for i, h in enumerate(wide_header)]
        print()
        print('  '.join(c.ljust(w) for c, w in zip(wide_header, ww)))
        print('  '.join('-' * w for w in ww))
        for r in wide:
            print('  '.join(c.ljust(w) for c, w in zip(r, ww)))
        md += ['', '| ' + ' | '.join(wide_header) + ' |', '|' + '---|' * len(wide_header)]
        md += ['| ' + ' | '.join(r) + ' |' for r in wide]
    print()
    for t, v, m in targets:
        val = '' if v is None else f' = {v:.2f}'
        print(f'  [{"met" if m else "MISSED" if v is not None or t.startswith("each") else "n/a"}] {t}{val}')
    if page_reason:
        print(f'  page: {page_reason}')
    sources = {rows[n]['page_source'] for n in rows if rows[n]['page_source']}
    if sources:
        print(f'  page time: {", ".join(sorted(sources))}; input -> verdict shown (with '
              'rendering): ' + ', '.join(f'{n} {fmt_s(rows[n]["page_wall_median"])}'
                                         for n in rows if rows[n]['page_wall_median']))
    m = results['machine']
    print(f'  machine: {m["cpu"]}, {m["cores"]} cores, {m["mem_gib"]} GiB; load '
          f'{m["load_start"][0]:.1f} -> {m["load_end"][0]:.1f}; CLI {args.rounds} runs, walks '
          f'{args.java_rounds}, page {args.page_rounds}, interleaved; medians')
    json.dump(results, open(os.path.join(OUT, 'results.json'), 'w'), indent=2)
    open(os.path.join(OUT, 'results.md'), 'w').write('\n'.join(md) + '\n')


if __name__ == '__main__':
    main()
