// Package store is the engine of the coordination store: a byte-compatible Go
// implementation of the reference LibsqlKv over any libSQL database (an
// embedded SQLite file through modernc.org/sqlite, reached through
// github.com/tursodatabase/libsql-client-go, or sqld / Turso over HTTP or
// WebSocket through kvdeck's own Hrana clients only: every request a
// remote store sends, the schema check included).
//
// It knows nothing of terminals. Every operation takes its notion of "now"
// from the injected Clock, holds locks as briefly as it can (reads in short
// pages, writes in short transactions) and returns errors that wrap the
// package's sentinels.
//
// # A tour
//
// Read the files in this order; each holds one concern.
//
//   - store.go: Open (the one place that picks the connection for a URL;
//     a file kvdeck creates gets WAL; the schema is checked), Options
//     (Clock, read-only, auth, busy timeout), Store (the engine's state),
//     Info, Counters (statements and rows read, for tests that prove how
//     much work an operation did), Close.
//   - conn.go: the engine apart from its connection. conn is what the
//     engine asks of one (a read, a windowed read, a write transaction,
//     the sizes its statements suit: connTraits), never which transport
//     it is; fileConn (an embedded file: its pool, immutable and
//     lock-free reads) and serverConn (kvdeck's own Hrana client) are
//     the two. stmtcache.go: the one cache of prepared statements, a
//     file pool's and the lock-free connection's.
//   - connector.go: the database/sql connector of each database; an
//     embedded file's built once per SQLite URI for the life of the
//     process (fileConnectors: libsql-client-go's leaves a handle open
//     each time it is built).
//   - readonly.go: a read-only WAL file read as immutable (no -wal, no
//     -shm left behind) until a writer comes; LeftFiles.
//   - journalmode.go: JournalMode (a file's, read at open), the advice
//     on a rollback-journal file (RollbackAdvice, JournalAdvice), and
//     SetJournalMode, the switch `kvdeck wal` makes: refused while
//     another process has the file open (openers_linux.go, through
//     /proc), tried once without waiting, journaled as a SettingChange.
//   - dburl.go: Target and ParseTarget, the accepted URL forms and the
//     SQLite URI they become; RedactURL (a token never shows).
//   - serverconn.go: serverConn, a server reached through kvdeck's own
//     Hrana client (store/internal/hrana: Hrana over HTTP and WebSocket,
//     the pipeline and cursor decoders and their fuzz targets; it
//     returns rows of Hrana values and builds no Entry), with its
//     primary and replica clients; it and the hrana*.go files are the
//     only ones of store/ that import the client. hranaread.go: the
//     remote reads of Store.query and batchRows, a statement's rows of
//     an answer scanned as database/sql would (hranascan.go: assign).
//     hranaoneshot.go: every remote write (execRemote: one request on
//     either transport) and Options.OneShot, the schema check sent with
//     a one-shot's first call. hranacursor.go: a streamed read through
//     the client's cursor, kept for a row no page can carry.
//     hranameter.go: Cost, what the requests cost (requests, bytes, the
//     server's rows read and written). hranaroute.go: Replication, the
//     replica lag (reads go to a replica carrying the highest
//     replication index seen: hrana.Route).
//   - scanremote.go: Scan and DumpAll over a server in keyset pages
//     sized in bytes (the first by the server, the next from the rows
//     before; a page refused as too large read again cut; a failed page
//     sent once more), which cost sqld a fifth of /v3/cursor's CPU.
//   - entry.go: Entry, a stored row (key, value, versionstamp, expiry),
//     and the scanning of rows written by anyone, odd ones included.
//   - read.go: Get, GetRaw, GetMany, List (ListOptions, Page: bounded
//     pages, one row more to know whether another follows), Scan, Dump,
//     DumpAll, DumpPrefixes. cursor.go: CursorAfter, the ListOptions.Cursor
//     that continues a listing right after an entry.
//   - find.go: FindKeys, FindAll (FindPage, FoundKey), the key finder:
//     instr on the encoded key finds a text in string and bytes parts,
//     confirmed by decoding, in windows sized in bytes over a server.
//   - children.go: Children (ChildrenOptions, ChildPage, Child), the
//     distinct next key parts under a prefix, found by a skip-scan.
//     level_count.go: CountChildren, the same walk counting only.
//     valuechunk.go: ValueChunk, a large value read in chunks.
//   - write.go: the commit. Commit (Check, Mutation, CommitResult,
//     CheckFailure) evaluates every check before any mutation in one
//     statement shape on every transport, and re-reads the checked keys
//     to explain a failed check; TryCommit is the same without the
//     explanation (for callers that retry anyway); a commit whose answer
//     was lost is settled by reading, else ErrOutcomeUnknown. Atomic builds
//     one; Set is a commit of one set. bulk.go: SetMany and SetManyChecked, a commit of
//     many sets (and checks) in multi-row statements of 500 rows, every
//     statement under SQLite's depth and variable limits. bulkcommit.go:
//     the TUI's bulk actions, PlanBulk (commits within BulkCommitRows and
//     BulkCommitBytes) and CommitBulk (checked; a unit whose row changed
//     since it was marked is skipped and reported, never overwritten).
//   - delete.go: Delete, a plain DELETE (no stamp), and DeleteRaw, which
//     removes a row by its raw key while its stamp still matches.
//   - exec.go: how a statement runs on each connection (a Hrana batch in
//     one request over HTTP and WebSocket, one transaction on a file),
//     handing each statement that asks its rows (stmt.read) in the same
//     request; the request deadlines.
//   - recorder.go: the write journal's contract. Recorder (Before and
//     After around every write), PendingWrite, WriteResult, RawRow,
//     Action (what one command or key did: WithWriteOp starts one,
//     WithAction joins it); SetRecorder attaches one (internal/journal's).
//     A BatchRecorder records a sweep batch's commits with one sync
//     (BeforeAll); their outcomes may wait for the next sync (Sync).
//   - journal.go: the engine side of it. Every write reads its keys'
//     rows first and tells the Recorder with them as before-images
//     before anything is sent (a refusal is ErrJournal, and no write),
//     then commits behind a guard that the keys still have the stamps
//     read (a failed guard writes nothing; the write is read and tried
//     again, then ErrKeysChanging), and tells it once after (applied,
//     not applied, unknown). Nothing is read when no Recorder is set.
//     sweep_journal.go: a journaled sweep's batches of images, read,
//     recorded and deleted (counted, else by stamp pairs) on three
//     goroutines; expired_packed.go: on a file its windows come packed,
//     one answer row each; unsynced.go: on a WAL file only a sweep's
//     last delete commit syncs.
//   - restore.go: Restore and RestoreAt (RestoreOp, RestoreResult,
//     RestoreConflict), the checked inverse of a journaled write: one
//     commit that puts rows back as they were, under a new stamp, only if
//     every key's physical row is the one expected (and, for RestoreAt,
//     seq has not gone below a floor: another life of the database);
//     ReadRows, the physical rows at keys.
//   - sweep.go: Sweep (SweepOptions, SweepProgress, SweepResult) deletes
//     expired rows in short batches that re-check their expiry (a dry run
//     counts them and, with SweepOptions.Each, lists them); ScanExpired
//     lists them. expired.go: how they are found, by SQL, in windows of
//     rows (of rowids over the whole store, of keys over a range): only
//     expired rows travel, with one summary per window. expired_lanes.go:
//     a whole-store listing on a file read on two connections at once
//     (docs/design/listing-lanes.md).
//   - stats.go: Stats and Census (CensusOptions, PrefixStats).
//   - census.go: the census's statements (prefix boundaries by seeks, range
//     aggregates, the row checks when asked) and how their figures are
//     gathered.
//   - lockfree.go: a read without SQLite's locks on a rollback-journal
//     file, validated (docs/design/lock-free-reads.md), through the
//     inotify watch of the file (lockfree_watch_linux.go; elsewhere no
//     read goes without locks, and LockFreeNotice says so), on one of
//     two connections (lanes).
//   - lockfree_read.go: readShort, one read statement without SQLite's
//     locks on a rollback-journal file where it can; queryLockFree, the
//     same for Store.query (every read: its rows read whole before they
//     are handed on); readWindowed, the windows of the reads that examine
//     many rows (the census, the expired scans, a filtered listing, a
//     level's and children's counts, the finder), halved while a
//     writer's commits leave no room for a lock-free read of them and
//     grown back after, remembered per store by kind.
//   - lockednote.go: a read with locks on a rollback-journal file is the
//     exception: why it is made (lockFreeBlocked, lockedReadWhy), and
//     the store says so once, before the first (Options.OnLockedRead,
//     LockedReadNote, LockedReads).
//   - listwindow.go: a filtered listing of a rollback-journal file read
//     in windows of rows, each row answered with whether the filter
//     keeps it.
//   - knobs.go: the limits and hooks tests change on one store (windows,
//     page sizes, commit limits, the sweep step and lock-free hooks); the
//     zero value is production's.
//   - version.go: Version and Seq, the cheap fingerprint a UI polls for
//     change detection.
//   - probe.go: ProbeRow, one read-only statement of the caller's in one
//     request (coord.ReadPulse, the fleet's health read, a sample of
//     rowids); with
//     Options.Unchecked, Open sends nothing and that statement is the
//     schema check.
//   - changes.go: the change feed (changes_odd.go: OddStamps, the rows
//     whose ver has no place in stamp order). Changes (ChangesOptions, ChangesPage)
//     returns the rows stamped after a point (ver > After), ascending by
//     stamp and then key, in pages that chain (Next, NextKey, More) even
//     inside one commit; each row once, as it is now. It reads nothing
//     while seq has not moved (on a file PRAGMA data_version tells; over
//     a server the check and the read are one statement, so a refresh is
//     one request whether anything moved or not). Without an index on
//     ver it examines the table in windows of rowids (5000 per statement
//     on a WAL file, a million per request to a server; on a
//     rollback-journal file one window of 2000 per call, resumed by the
//     reader's next call through ChangesPage.Walk, so a service's commit
//     is never held up long) and only matching rows travel; with one
//     (index.go) it is one indexed range read. On a file a head gives seq
//     and a mark (data_version) and no rows are counted. Plain deletes
//     and expiries issue no stamp: a reader re-reads the keys it saw in
//     bounded batches, in turn (ChangesOptions.Recheck, in the same
//     request; GetRawMany) and calls a vanished row deleted, or expired
//     when its expiry has passed.
//   - index.go: the opt-in index on kv(ver) (VerIndex; AddVerIndex,
//     DropVerIndex, VerIndexes), what `kvdeck index` manages; the
//     reference creates none and runs unchanged beside it.
//   - clock.go: VirtualClock, a clock a UI can fix, shift and reset.
//   - errors.go: the sentinels (ErrUnreachable, ErrUnauthorized,
//     ErrNotStore, ErrLocked, ErrReadOnly, ErrBadURL, ErrTokenInURL,
//     ErrInvalidValue, ErrInvalidArgument, ErrOutcomeUnknown; ErrJournal
//     is in recorder.go) and the mapping of driver errors onto them.
//
// Tests mirror the files (read_test.go, write rules in rules_test.go,
// ...); every store test runs against an embedded file, sqld over HTTP
// and sqld over WebSocket (backend_test.go).
package store
