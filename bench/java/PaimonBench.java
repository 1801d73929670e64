import org.apache.paimon.FileStore;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.consumer.Consumer;
import org.apache.paimon.consumer.ConsumerManager;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.manifest.FileKind;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.manifest.ManifestFile;
import org.apache.paimon.manifest.ManifestFileMeta;
import org.apache.paimon.manifest.ManifestList;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.utils.SnapshotManager;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Benchmark companion of the Paimon Recovery Validator, on Java Paimon 0.9.0 (the jar the fixture
 * generator uses: paimon-python-java-bridge-0.9.0.jar from the pypaimon 0.2.0 sdist).
 *
 *   write WH TABLE COMMITS BUCKETS PARTITIONS
 *        a real lookup-changelog primary-key table: COMMITS streaming commits (each an APPEND and
 *        a COMPACT snapshot, as Flink commits with changelog-producer.lookup-wait), consumers
 *        set through ConsumerManager, a tag and a branch with commits of its own.
 *   walk TABLE_DIR
 *        the metadata walk the validator is compared with, using Paimon's own readers: list the
 *        snapshots of every branch (SnapshotManager), read every distinct manifest list once
 *        (ManifestList.read) and every distinct manifest once (ManifestFile.read), the tags, and
 *        the consumers (ConsumerManager.consumers()). Prints what it read.
 *   validate TABLE_DIR [EXPECT_SNAPSHOTS]
 *        reads a warehouse back the way Paimon would use it: every snapshot of every branch,
 *        its manifest lists and manifests, FileStoreTable.newScan().plan() at every snapshot
 *        (time travel), the consumers and tags. Fails (exit 1) on any exception or if a plan
 *        disagrees with the manifests it was built from.
 */
public class PaimonBench {

    public static void main(String[] a) throws Exception {
        switch (a.length == 0 ? "" : a[0]) {
            case "write":
                write(a[1], a[2], Integer.parseInt(a[3]), Integer.parseInt(a[4]),
                        Integer.parseInt(a[5]));
                break;
            case "walk":
                walk(a[1]);
                break;
            case "validate":
                validate(a[1], a.length > 2 ? Long.parseLong(a[2]) : -1);
                break;
            default:
                System.err.println("usage: PaimonBench write WH TABLE COMMITS BUCKETS PARTITIONS"
                        + " | walk TABLE_DIR | validate TABLE_DIR [EXPECT_SNAPSHOTS]");
                System.exit(2);
        }
    }

    // ------------------------------------------------------------------------------ write

    static void write(String wh, String table, int commits, int buckets, int partitions)
            throws Exception {
        Options o = new Options();
        o.set("warehouse", wh);
        Catalog c = CatalogFactory.createCatalog(CatalogContext.create(o));
        c.createDatabase("db", true);
        Schema.Builder b = Schema.newBuilder();
        if (partitions > 0) {
            b.column("part", DataTypes.INT().notNull()).partitionKeys("part");
        }
        b.column("id", DataTypes.BIGINT().notNull()).column("v", DataTypes.STRING());
        if (partitions > 0) {
            b.primaryKey("part", "id");
        } else {
            b.primaryKey("id");
        }
        b.option("bucket", Integer.toString(buckets))
                .option("changelog-producer", "lookup")
                .option("file.format", "parquet")
                // keep every snapshot: the benchmark wants all of them
                .option("snapshot.num-retained.min", "1000000")
                .option("snapshot.num-retained.max", "1000000")
                .option("snapshot.time-retained", "3650 d")
                .option("consumer.expiration-time", "3650 d");
        Identifier id = Identifier.create("db", table);
        c.createTable(id, b.build(), false);
        FileStoreTable t = (FileStoreTable) c.getTable(id);
        ConsumerManager consumers = new ConsumerManager(t.fileIO(), t.location());

        long t0 = System.nanoTime();
        int parts = Math.max(partitions, 1);
        StreamWriteBuilder wb = t.newStreamWriteBuilder().withCommitUser("bench-writer");
        try (StreamTableWrite w = wb.newWrite(); StreamTableCommit cm = wb.newCommit()) {
            w.withIOManager(IOManager.create(System.getProperty("java.io.tmpdir")));
            for (long round = 1; round <= commits; round++) {
                for (int p = 0; p < parts; p++) {
                    for (int k = 0; k < 2 * buckets; k++) {
                        long key = (round * 7 + k) % 5000;
                        String v = "r" + round;
                        w.write(partitions > 0
                                ? GenericRow.of(p, key, BinaryString.fromString(v))
                                : GenericRow.of(key, BinaryString.fromString(v)));
                    }
                }
                cm.commit(round, w.prepareCommit(true, round));
                long latest = t.snapshotManager().latestSnapshotId();
                if (round == commits / 3) {
                    consumers.resetConsumer("reader-early", new Consumer(latest - 10));
                }
                if (round == commits / 2) {
                    t.createTag("bench-tag", latest);
                }
                if (round == 2 * commits / 3) {
                    consumers.resetConsumer("reader-middle", new Consumer(latest + 1));
                }
                if (round % 500 == 0) {
                    System.out.printf("  %d commits, %.1f s%n", round, (System.nanoTime() - t0) / 1e9);
                }
            }
            long latest = t.snapshotManager().latestSnapshotId();
            consumers.resetConsumer("reader-latest", new Consumer(latest + 1));
        }
        // a branch from the tag, with a few commits of its own
        t.createBranch("bench-branch", "bench-tag");
        FileStoreTable br = t.switchToBranch("bench-branch");
        StreamWriteBuilder bwb = br.newStreamWriteBuilder().withCommitUser("branch-writer");
        try (StreamTableWrite w = bwb.newWrite(); StreamTableCommit cm = bwb.newCommit()) {
            w.withIOManager(IOManager.create(System.getProperty("java.io.tmpdir")));
            for (long round = 1; round <= 5; round++) {
                for (int p = 0; p < parts; p++) {
                    w.write(partitions > 0
                            ? GenericRow.of(p, round, BinaryString.fromString("b" + round))
                            : GenericRow.of(round, BinaryString.fromString("b" + round)));
                }
                cm.commit(round, w.prepareCommit(true, round));
            }
        }
        System.out.printf("wrote %s: %d commits, latest snapshot %d, %.1f s%n", t.location(),
                commits, t.snapshotManager().latestSnapshotId(), (System.nanoTime() - t0) / 1e9);
    }

    // ------------------------------------------------------------------------------ walk

    static void walk(String dir) throws Exception {
        long t0 = System.nanoTime();
        FileIO io = LocalFileIO.create();
        FileStoreTable t = FileStoreTableFactory.create(io, new Path(dir));
        FileStore<?> store = t.store();
        ManifestList lists = store.manifestListFactory().create();
        ManifestFile manifests = store.manifestFileFactory().create();
        Set<String> seenLists = new HashSet<>();
        Map<String, Long> seenManifests = new HashMap<>();
        long snapshots = 0;
        long metas = 0;
        long entries = 0;
        List<String> branches = new ArrayList<>();
        branches.add("main");
        branches.addAll(t.branchManager().branches());
        long tags = 0;
        for (String branch : branches) {
            FileStoreTable bt = branch.equals("main") ? t : t.switchToBranch(branch);
            List<Snapshot> all = new ArrayList<>();
            Iterator<Snapshot> it = bt.snapshotManager().snapshots();
            while (it.hasNext()) {
                all.add(it.next());
            }
            all.addAll(bt.tagManager().taggedSnapshots());
            tags += bt.tagManager().tagCount();
            for (Snapshot s : all) {
                snapshots++;
                for (String list : new String[] {
                        s.baseManifestList(), s.deltaManifestList(), s.changelogManifestList()}) {
                    if (list == null || !seenLists.add(list)) {
                        continue;
                    }
                    for (ManifestFileMeta m : lists.read(list)) {
                        metas++;
                        seenManifests.putIfAbsent(m.fileName(), m.fileSize());
                    }
                }
            }
        }
        for (Map.Entry<String, Long> m : seenManifests.entrySet()) {
            entries += manifests.read(m.getKey(), m.getValue()).size();
        }
        Map<String, Long> cons = new ConsumerManager(io, new Path(dir)).consumers();
        System.out.printf(
                "walk %s: %d snapshots (incl. %d tags) in %d branches, %d manifest lists (%d metas),"
                        + " %d manifests (%d entries), %d consumers, %.2f s in JVM%n",
                dir, snapshots, tags, branches.size(), seenLists.size(), metas, seenManifests.size(),
                entries, cons.size(), (System.nanoTime() - t0) / 1e9);
    }

    // ------------------------------------------------------------------------------ validate

    static void validate(String dir, long expectSnapshots) throws Exception {
        long t0 = System.nanoTime();
        FileIO io = LocalFileIO.create();
        FileStoreTable t = FileStoreTableFactory.create(io, new Path(dir));
        List<String> branches = new ArrayList<>();
        branches.add("main");
        branches.addAll(t.branchManager().branches());
        long snapshots = 0;
        long plans = 0;
        long listsRead = 0;
        Set<String> manifestsRead = new HashSet<>();
        for (String branch : branches) {
            FileStoreTable bt = branch.equals("main") ? t : t.switchToBranch(branch);
            FileStore<?> store = bt.store();
            ManifestList lists = store.manifestListFactory().create();
            ManifestFile manifests = store.manifestFileFactory().create();
            SnapshotManager sm = bt.snapshotManager();
            Long earliest = sm.earliestSnapshotId();
            Long latest = sm.latestSnapshotId();
            if (earliest == null || latest == null) {
                throw new IllegalStateException(branch + ": no snapshots");
            }
            // the live files of each snapshot, built from Paimon's own manifest readers
            Map<String, List<ManifestEntry>> cache = new HashMap<>();
            for (long id = earliest; id <= latest; id++) {
                Snapshot s = sm.snapshot(id);
                if (s.id() != id) {
                    throw new IllegalStateException("snapshot-" + id + " says id " + s.id());
                }
                snapshots++;
                Map<String, ManifestEntry> live = new TreeMap<>();
                List<ManifestFileMeta> data = lists.readDataManifests(s);
                listsRead += 2;
                for (ManifestFileMeta m : data) {
                    List<ManifestEntry> es = cache.get(m.fileName());
                    if (es == null) {
                        es = manifests.read(m.fileName(), m.fileSize());
                        cache.put(m.fileName(), es);
                        manifestsRead.add(m.fileName());
                        if (cache.size() > 4096) {
                            cache.clear();
                        }
                    }
                    for (ManifestEntry e : es) {
                        String k = e.partition().hashCode() + "/" + e.bucket() + "/"
                                + e.file().level() + "/" + e.file().fileName();
                        if (e.kind() == FileKind.ADD) {
                            live.put(k, e);
                        } else {
                            live.remove(k);
                        }
                    }
                }
                if (s.changelogManifestList() != null) {
                    listsRead++;
                    for (ManifestFileMeta m : lists.readChangelogManifests(s)) {
                        manifests.read(m.fileName(), m.fileSize());
                        manifestsRead.add(m.fileName());
                    }
                }
                Map<String, String> dyn = new HashMap<>();
                dyn.put("scan.snapshot-id", Long.toString(id));
                FileStoreTable at = bt.copy(dyn);
                long planned = 0;
                for (Split split : at.newScan().plan().splits()) {
                    planned += ((DataSplit) split).dataFiles().size();
                }
                plans++;
                if (planned != live.size()) {
                    throw new IllegalStateException(branch + " snapshot " + id + ": plan() has "
                            + planned + " files, the manifests say " + live.size());
                }
                if (id == latest) {
                    System.out.printf("  %s: snapshots %d..%d, latest plan %d files%n", branch,
                            earliest, latest, planned);
                }
            }
            for (Snapshot tagged : bt.tagManager().taggedSnapshots()) {
                lists.readAllManifests(tagged);
            }
        }
        Map<String, Long> cons = new ConsumerManager(io, new Path(dir)).consumers();
        List<String> names = new ArrayList<>(cons.keySet());
        Collections.sort(names);
        if (expectSnapshots >= 0 && snapshots != expectSnapshots) {
            throw new IllegalStateException(
                    "expected " + expectSnapshots + " snapshots, read " + snapshots);
        }
        System.out.printf(
                "VALID %s: %d snapshots in %d branches, %d plans, %d manifest lists read,"
                        + " %d distinct manifests, consumers %s, %.1f s%n",
                dir, snapshots, branches.size(), plans, listsRead, manifestsRead.size(), cons,
                (System.nanoTime() - t0) / 1e9);
    }
}
