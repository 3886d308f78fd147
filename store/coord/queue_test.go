package coord_test

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// consumer records every delivery and applies decide to each message.
type consumer struct {
	got    []*coord.Message
	decide func(m *coord.Message) error
}

func (c *consumer) handle(_ context.Context, b *coord.Batch) error {
	for _, m := range b.Messages {
		c.got = append(c.got, m)
		if c.decide != nil {
			if err := c.decide(m); err != nil {
				return err
			}
		}
	}
	return nil
}

// attempts returns the delivery numbers by body since the last call.
func (c *consumer) take() []string {
	var out []string
	for _, m := range c.got {
		out = append(out, string(m.Body)+"#"+string(rune('0'+m.Attempts)))
	}
	c.got = nil
	sort.Strings(out)
	return out
}

// newBroker returns a broker whose consumer c takes the queue "jobs".
func newBroker(s *store.Store, c *consumer, opts coord.ConsumerOptions) *coord.Broker {
	b := coord.NewBroker(s)
	b.Consume("jobs", c.handle, opts)
	return b
}

func poll(t *testing.T, b *coord.Broker, now int64) []coord.Delivery {
	t.Helper()
	d, err := b.Poll(storetest.Ctx(t), now)
	must(t, err)
	return d
}

func TestQueueFirstDeliveryAndAck(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		id, err := coord.Send(storetest.Ctx(t), s, "jobs", []byte(` {"n": 1.50} `), 0)
		must(t, err)
		if !uuidV4.MatchString(id) {
			t.Fatalf("id %q", id)
		}
		if got := rows(t, s, `["dwk_queue_due"]`); !reflect.DeepEqual(got, []string{`["dwk_queue_due", "jobs", 1767312000000, "` + id + `"] = {"body":{"n":1.5},"attempts":0}`}) {
			t.Fatalf("row %q", got)
		}
		con := &consumer{decide: func(m *coord.Message) error { m.Ack(); return nil }}
		b := newBroker(s, con, coord.ConsumerOptions{})
		d := poll(t, b, storetest.T0)
		if len(d) != 1 || d[0].ID != id || d[0].Attempts != 1 || d[0].Decision != coord.DecisionAck || d[0].Outcome != coord.OutcomeAcked {
			t.Fatalf("delivery %+v", d)
		}
		if m := con.got[0]; m.Attempts != 1 || m.Timestamp != storetest.T0 || m.Queue != "jobs" {
			t.Fatalf("message %+v", m)
		}
		if d := poll(t, b, storetest.T0+time.Hour.Milliseconds()); len(d) != 0 {
			t.Fatalf("acked message redelivered: %+v", d)
		}
	})
}

func TestQueueUndecidedAndThrownAreRedelivered(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		_, err := coord.SendBatch(storetest.Ctx(t), s, "jobs", []coord.SendRequest{{Body: []byte(`"a"`)}, {Body: []byte(`"b"`)}, {Body: []byte(`"c"`)}}, 0)
		must(t, err)
		// The handler acks "a", then throws: "b" and "c" are never decided.
		con := &consumer{}
		b := coord.NewBroker(s)
		b.Consume("jobs", func(cx context.Context, batch *coord.Batch) error {
			for _, m := range batch.Messages {
				if string(m.Body) == `"a"` {
					m.Ack()
				}
			}
			con.got = append(con.got, batch.Messages...)
			return errors.New("boom")
		}, coord.ConsumerOptions{})
		d := poll(t, b, storetest.T0)
		outcomes := map[string]coord.DeliveryOutcome{}
		for _, x := range d {
			outcomes[string(x.Body)] = x.Outcome
		}
		if !reflect.DeepEqual(outcomes, map[string]coord.DeliveryOutcome{`"a"`: coord.OutcomeAcked, `"b"`: coord.OutcomeRequeued, `"c"`: coord.OutcomeRequeued}) {
			t.Fatalf("outcomes %v", outcomes)
		}
		con.take()
		b.Consume("jobs", con.handle, coord.ConsumerOptions{}) // undecided from now on
		poll(t, b, storetest.T0+1000)
		if got := con.take(); !reflect.DeepEqual(got, []string{`"b"#2`, `"c"#2`}) {
			t.Fatalf("redelivered %v, want b and c on attempt 2 (a's ack kept)", got)
		}
		poll(t, b, storetest.T0+1000+2000)
		if got := con.take(); !reflect.DeepEqual(got, []string{`"b"#3`, `"c"#3`}) {
			t.Fatalf("undecided messages were not redelivered: %v", got)
		}
	})
}

func TestQueueRetryDelayAndBackoff(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		_, err := coord.Send(storetest.Ctx(t), s, "explicit", []byte(`1`), 0)
		must(t, err)
		_, err = coord.Send(storetest.Ctx(t), s, "backoff", []byte(`2`), 0)
		must(t, err)
		ex := &consumer{decide: func(m *coord.Message) error { m.RetryAfter(5 * time.Second); return nil }}
		bo := &consumer{decide: func(m *coord.Message) error { m.Retry(); return nil }}
		b := coord.NewBroker(s)
		b.Consume("explicit", ex.handle, coord.ConsumerOptions{})
		b.Consume("backoff", bo.handle, coord.ConsumerOptions{})
		poll(t, b, storetest.T0)
		ex.take()
		bo.take()
		// explicit: due exactly 5 s later; backoff: 1 s, then 2 s.
		poll(t, b, storetest.T0+999)
		if len(ex.got)+len(bo.got) != 0 {
			t.Fatal("redelivered before its delay")
		}
		poll(t, b, storetest.T0+1000)
		if len(bo.take()) != 1 || len(ex.take()) != 0 {
			t.Fatal("default backoff is not 1 s")
		}
		poll(t, b, storetest.T0+1000+1999)
		if len(bo.take()) != 0 {
			t.Fatal("second backoff shorter than 2 s")
		}
		poll(t, b, storetest.T0+1000+2000)
		if len(bo.take()) != 1 {
			t.Fatal("second backoff is not 2 s")
		}
		poll(t, b, storetest.T0+4999)
		if len(ex.take()) != 0 {
			t.Fatal("retry(5s) redelivered early")
		}
		poll(t, b, storetest.T0+5000)
		if got := ex.take(); !reflect.DeepEqual(got, []string{"1#2"}) {
			t.Fatalf("retry(5s) at exactly 5 s: %v", got)
		}
	})
}

func TestQueueMaxAttempts(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		_, err := coord.Send(storetest.Ctx(t), s, "jobs", []byte(`"x"`), 0)
		must(t, err)
		con := &consumer{}
		b := newBroker(s, con, coord.ConsumerOptions{MaxAttempts: 3, BaseRetryDelay: time.Millisecond})
		var seen []string
		for now := storetest.T0; now < storetest.T0+100; now += 10 {
			poll(t, b, now)
			seen = append(seen, con.take()...)
		}
		if !reflect.DeepEqual(seen, []string{`"x"#1`, `"x"#2`, `"x"#3`}) {
			t.Fatalf("deliveries %v, want attempts 1, 2, 3 and then none", seen)
		}
		if got := rows(t, s, `[]`); len(got) != 0 {
			t.Fatalf("a dropped message left %q", got)
		}
	})
}

func TestQueueDeadLetterIsOptIn(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		id, err := coord.Send(storetest.Ctx(t), s, "jobs", []byte(`{"k":[1]}`), 0)
		must(t, err)
		b := newBroker(s, &consumer{}, coord.ConsumerOptions{MaxAttempts: 1, DeadLetter: true})
		d := poll(t, b, storetest.T0)
		if len(d) != 1 || d[0].Outcome != coord.OutcomeDropped {
			t.Fatalf("delivery %+v", d)
		}
		want := []string{`["kvdeck_dead_letter", "jobs", "` + id + `"] = {"body":{"k":[1]},"attempts":1,"droppedAt":1767312000000}`}
		if got := rows(t, s, `[]`); !reflect.DeepEqual(got, want) {
			t.Fatalf("rows %q, want %q", got, want)
		}
	})
}

func TestQueueBatchSizeDelaysAndIsolation(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		var reqs []coord.SendRequest
		for i := range 7 {
			reqs = append(reqs, coord.SendRequest{Body: []byte{'0' + byte(i)}})
		}
		now := time.Duration(0)
		reqs[6].Delay = &now // its own delay (none) overrides the batch's 10 s
		_, err := coord.SendBatch(storetest.Ctx(t), s, "jobs", reqs, 10*time.Second)
		must(t, err)
		_, err = coord.Send(storetest.Ctx(t), s, "other", []byte(`"o"`), 0)
		must(t, err)
		con := &consumer{decide: func(m *coord.Message) error { m.Ack(); return nil }}
		b := newBroker(s, con, coord.ConsumerOptions{MaxBatchSize: 4})
		poll(t, b, storetest.T0)
		if got := con.take(); !reflect.DeepEqual(got, []string{"6#1"}) {
			t.Fatalf("at storetest.T0: %v, want only the message without delay", got)
		}
		var sizes []int
		for range 3 {
			sizes = append(sizes, len(poll(t, b, storetest.T0+10000)))
		}
		if !reflect.DeepEqual(sizes, []int{4, 2, 0}) {
			t.Fatalf("batch sizes %v, want 4, 2, 0", sizes)
		}
		if got := rows(t, s, `["dwk_queue_due"]`); len(got) != 1 || !strings.Contains(got[0], `"other"`) {
			t.Fatalf("other queue touched: %q", got)
		}
		if _, err := b.PollQueue(storetest.Ctx(t), "other", storetest.T0); !errors.Is(err, coord.ErrInvalidArgument) {
			t.Fatalf("poll of an unregistered queue: %v", err)
		}
	})
}

func TestQueueSendRefusesBadBodies(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		for _, body := range []string{``, `1,"attempts":9`, `{`, `nope`} {
			if _, err := coord.Send(storetest.Ctx(t), s, "jobs", []byte(body), 0); !errors.Is(err, coord.ErrInvalidArgument) {
				t.Errorf("body %q: %v", body, err)
			}
		}
		if got := rows(t, s, `[]`); len(got) != 0 {
			t.Fatalf("bad bodies wrote %q", got)
		}
	})
}

func TestQueuePurge(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		for i := range 5 {
			_, err := coord.Send(storetest.Ctx(t), s, "jobs", []byte(`1`), time.Duration(i)*time.Hour)
			must(t, err)
		}
		_, err := coord.Send(storetest.Ctx(t), s, "keep", []byte(`1`), 0)
		must(t, err)
		n, err := coord.Purge(storetest.Ctx(t), s, "jobs")
		if n != 5 || err != nil {
			t.Fatalf("purge: %d %v", n, err)
		}
		if got := rows(t, s, `["dwk_queue_due"]`); len(got) != 1 {
			t.Fatalf("left %q", got)
		}
	})
}

func TestBackoff(t *testing.T) {
	for attempts, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 8 * time.Second} {
		if got := coord.Backoff(time.Second, attempts); got != want {
			t.Errorf("Backoff(1s, %d) = %s", attempts, got)
		}
	}
	if coord.Backoff(time.Second, 1000) <= 0 {
		t.Error("Backoff overflows")
	}
}
