package coord

import (
	"strconv"

	"kvdeck/codec"
	"kvdeck/store"
)

// The bulk units of the coordination records (the TUI's bulk actions over
// marked messages and alarms, store.CommitBulk): each holds the rows as
// they were marked (stamp checks) and the writes that act on them, so a
// row a consumer or poller changed since is skipped, never overwritten.

// QueueRetryUnit makes a marked message ready now, as asynqmon's "retry":
// its row (key at stamp, holding value) is deleted and the same message
// (same id, body and attempts) written due at now.
func QueueRetryUnit(key codec.Key, stamp string, value []byte, now int64) (store.BulkUnit, error) {
	qm, err := parseMessage(store.Entry{Key: key, Value: value})
	if err != nil {
		return store.BulkUnit{}, err
	}
	return store.BulkUnit{
		Key:    key,
		Checks: []store.Check{{Key: key, Versionstamp: stamp}},
		Muts: []store.Mutation{
			{Type: store.MutationDelete, Key: key},
			{Type: store.MutationSet, Key: QueueKey(qm.Queue, now, qm.ID), Value: messageRecord{Body: qm.Body, Attempts: qm.Attempts}.encode()},
		},
	}, nil
}

// QueueDeadLetterUnit moves a marked message out of its queue to
// ["kvdeck_dead_letter", queue, id] as the broker's DeadLetter option
// keeps a dropped one: {"body", "attempts", "droppedAt": now}.
func QueueDeadLetterUnit(key codec.Key, stamp string, value []byte, now int64) (store.BulkUnit, error) {
	qm, err := parseMessage(store.Entry{Key: key, Value: value})
	if err != nil {
		return store.BulkUnit{}, err
	}
	dead := []byte(`{"body":` + string(qm.Body) + `,"attempts":` + strconv.Itoa(qm.Attempts) + `,"droppedAt":` + strconv.FormatInt(now, 10) + `}`)
	return store.BulkUnit{
		Key:    key,
		Checks: []store.Check{{Key: key, Versionstamp: stamp}},
		Muts: []store.Mutation{
			{Type: store.MutationDelete, Key: key},
			{Type: store.MutationSet, Key: DeadLetterKey(qm.Queue, qm.ID), Value: dead},
		},
	}, nil
}

// AlarmRows are the rows of one alarm as shown (its due entries and its
// by-id record), each with the stamp seen.
type AlarmRows []store.Check

// AlarmDeleteUnit deletes every row of one alarm (named by key, the row
// marked) when none changed since it was seen.
func AlarmDeleteUnit(key codec.Key, rows AlarmRows) store.BulkUnit {
	u := store.BulkUnit{Key: key, Checks: rows}
	for _, r := range rows {
		u.Muts = append(u.Muts, store.Mutation{Type: store.MutationDelete, Key: r.Key})
	}
	return u
}

// AlarmFireNowUnit reschedules one alarm to now (its retry count kept), as
// SetAlarm would: its due entries deleted, the due entry at now and the
// by-id record written; checked against the rows seen.
func AlarmFireNowUnit(key codec.Key, class, id string, retryCount int, rows AlarmRows, now int64) store.BulkUnit {
	u := AlarmDeleteUnit(key, rows)
	value := AlarmRecord{EpochMs: now, RetryCount: retryCount}.encode()
	u.Muts = append(u.Muts,
		store.Mutation{Type: store.MutationSet, Key: AlarmDueKey(class, now, id), Value: value},
		store.Mutation{Type: store.MutationSet, Key: AlarmByIDKey(class, id), Value: value})
	return u
}
