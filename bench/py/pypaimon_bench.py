#!/usr/bin/env python3
"""pypaimon 2.1 side of the benchmark (run with the venv that has pypaimon==2.1.0).

    pypaimon_bench.py write WAREHOUSE COMMITS
        a pypaimon-written warehouse: table db.events (partitioned by dt, 2 buckets, primary key,
        changelog-producer=input), COMMITS streaming commits of one writer, a tag, a branch from
        it, and consumers written by pypaimon's own streaming reader (consumer-id).
    pypaimon_bench.py walk TABLE_DIR
        the metadata walk, with pypaimon's own readers: SnapshotManager.list_snapshots() per
        branch (and the tags), ManifestListManager.read() for every distinct manifest list once,
        ManifestFileManager.read() for every distinct manifest once, ConsumerManager.consumers().
"""
import os
import sys
import time


def write(wh, commits):
    import pyarrow as pa
    from pypaimon import CatalogFactory, Schema

    t0 = time.time()
    cat = CatalogFactory.create({'warehouse': wh})
    cat.create_database('db', False)
    s = pa.schema([pa.field('dt', pa.string(), nullable=False),
                   pa.field('id', pa.int64(), nullable=False), ('v', pa.string())])
    cat.create_table('db.events', Schema.from_pyarrow_schema(
        s, partition_keys=['dt'], primary_keys=['dt', 'id'],
        options={'bucket': '2', 'changelog-producer': 'input', 'file.format': 'parquet',
                 'snapshot.num-retained.min': '1000000', 'snapshot.num-retained.max': '1000000',
                 'snapshot.time-retained': '3650 d'}), False)
    t = cat.get_table('db.events')
    wb = t.new_stream_write_builder()._with_commit_user('py-bench-writer')
    w, c = wb.new_write(), wb.new_commit()
    scan = None
    it = None
    for rnd in range(1, commits + 1):
        rows = [{'dt': dt, 'id': (rnd * 3 + i) % 500, 'v': f'r{rnd}'}
                for dt in ('2024-01-01', '2024-01-02') for i in range(4)]
        w.write_arrow(pa.Table.from_pylist(rows, schema=s))
        c.commit(w.prepare_commit(rnd), rnd)
        if rnd == commits // 2:
            t.create_tag('bench-tag', rnd)
        if rnd == commits // 3:
            # a real streaming read with consumer-id: the consumer file is written when the
            # generator resumes after a plan was handed out
            scan = t.new_stream_read_builder().with_consumer_id('py-reader') \
                .with_poll_interval_ms(10).new_streaming_scan()
            it = scan.stream_sync()
            next(it)
        if it is not None and rnd in (commits // 3 + 1, commits // 3 + 2):
            next(it)
        if rnd % 100 == 0:
            print(f'  {rnd} commits, {time.time() - t0:.1f} s', flush=True)
    w.close()
    c.close()
    t.branch_manager().create_branch('bench-branch', 'bench-tag')
    print(f'wrote {wh}/db.db/events: {commits} commits, {time.time() - t0:.1f} s')


def walk(table_dir):
    t0 = time.time()
    from pypaimon import CatalogFactory
    from pypaimon.manifest.manifest_file_manager import ManifestFileManager
    from pypaimon.manifest.manifest_list_manager import ManifestListManager

    table_dir = os.path.abspath(table_dir)
    db_dir, table = os.path.split(table_dir)
    wh, db = os.path.split(db_dir)
    cat = CatalogFactory.create({'warehouse': wh})
    t = cat.get_table(f'{db[:-3]}.{table}')
    lists = ManifestListManager(t)
    manifests = ManifestFileManager(t)
    seen_lists = set()
    seen_manifests = {}
    snapshots = metas = entries = 0
    branches = ['main'] + list(t.branch_manager().branches())
    for branch in branches:
        sm = t.snapshot_manager() if branch == 'main' else \
            t.snapshot_manager().copy_with_branch(branch)
        all_snapshots = list(sm.list_snapshots())
        if branch == 'main':
            tm = t.tag_manager()
            all_snapshots += [tm.get_or_throw(n).trim_to_snapshot() for n in tm.list_tags()]
        for s in all_snapshots:
            snapshots += 1
            for name, size in ((s.base_manifest_list, s.base_manifest_list_size),
                               (s.delta_manifest_list, s.delta_manifest_list_size),
                               (s.changelog_manifest_list, s.changelog_manifest_list_size)):
                if not name or name in seen_lists:
                    continue
                seen_lists.add(name)
                for m in lists.read(name, size):
                    metas += 1
                    seen_manifests.setdefault(m.file_name, m.file_size)
    for name, size in seen_manifests.items():
        entries += len(manifests.read(name, drop_stats=False, file_size=size))
    consumers = t.consumer_manager().consumers()
    print(f'walk {table_dir}: {snapshots} snapshots in {len(branches)} branches, '
          f'{len(seen_lists)} manifest lists ({metas} metas), {len(seen_manifests)} manifests '
          f'({entries} entries), {len(consumers)} consumers, {time.time() - t0:.2f} s in Python')


if __name__ == '__main__':
    if len(sys.argv) >= 4 and sys.argv[1] == 'write':
        write(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == 'walk':
        walk(sys.argv[2])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
