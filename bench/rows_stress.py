"""Row-level pass at scale: the java09_d crash fixture with its lost changelog file replaced by one
of N rows (and the live data file by N rows of the same keys), so the lost-changelog finding reads
N rows of changelog and N rows of live data.

    bench/out/venv/bin/python bench/rows_stress.py 1000000      # writes bench/out/rows_stress_1000000.zip
    /usr/bin/time -v target/release/paimon-recovery-validator check bench/out/rows_stress_1000000.zip -q --format json -o /dev/null
    (and the same with --no-rows: the difference is the row-level pass)

Needs pyarrow (bench/out/venv, made by bench/run.py, has it).
"""
import os, zipfile, io, sys
import pyarrow as pa, pyarrow.parquet as pq
N = int(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
src = os.path.join(ROOT, 'tests/fixtures/warehouses/java09_d_crash_between_append_and_compact.zip')
os.makedirs(os.path.join(ROOT, 'bench/out'), exist_ok=True)
dst = os.path.join(ROOT, f'bench/out/rows_stress_{N}.zip')
def table(keys, seqs, kinds, vals):
    return pa.table({
        '_KEY_id': pa.array(keys, pa.int64()),
        '_SEQUENCE_NUMBER': pa.array(seqs, pa.int64()),
        '_VALUE_KIND': pa.array(kinds, pa.int8()),
        'id': pa.array(keys, pa.int64()),
        'v': pa.array(vals, pa.string()),
    })
def parquet(t):
    b = io.BytesIO(); pq.write_table(t, b, compression='zstd'); return b.getvalue()
keys = list(range(N))
lost = parquet(table(keys, [100 + k for k in keys], [2]*N, [f'lost{k}' for k in keys]))
live = parquet(table(keys, [k for k in keys], [0]*N, [f'live{k}' for k in keys]))
zin = zipfile.ZipFile(src)
zout = zipfile.ZipFile(dst, 'w', zipfile.ZIP_DEFLATED)
for info in zin.infolist():
    data = zin.read(info)
    if info.filename.endswith('changelog-af6d83bc-7cb7-4403-9e65-e1f162b23c84-0.parquet'):
        data = lost
    elif info.filename.endswith('data-ccff8859-7aa2-4399-a35e-0cbb0dcdaa57-0.parquet'):
        data = live
    zout.writestr(info, data)
zout.close()
print(dst, len(lost), len(live))
