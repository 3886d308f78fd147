package demo

import (
	"fmt"
	"math/rand/v2"
	"time"

	"kvdeck/codec"
	"kvdeck/store/coord"
)

// appData writes the plain rows of the app the services belong to, in one
// commit like an import: users, orders keyed by number and a bigint
// snowflake id, blobs keyed by bytes, a flag keyed by a boolean and the
// request counters the simulation increments with check-and-set.
func (w *seeder) appData() error {
	var rows []row
	for i, u := range users() {
		rows = append(rows, row{key: key("users", u), value: map[string]any{
			"name": u, "email": u + "@example.com", "plan": pick(w.r, []string{"free", "pro", "team"}),
			"createdAt": w.at(-time.Duration(30+i*7) * 24 * time.Hour),
		}})
	}
	snowflake := int64(1)<<60 + w.r.Int64N(1<<40) // past 2^53: only a bigint holds it exactly
	for n := range 6 {
		order := 1001 + n
		k := codec.Key{codec.String("orders"), codec.Number(float64(order)), codec.Bigint(snowflake + int64(n)<<22)}
		rows = append(rows, row{key: k, value: map[string]any{
			"user": users()[n], "status": pick(w.r, []string{"paid", "shipped", "pending"}),
			"totalCents": 500 + w.r.IntN(20000), "currency": "EUR",
		}})
	}
	for i := range 4 {
		digest := w.r.Uint64()
		b := []byte{byte(digest >> 56), byte(digest >> 48), byte(digest >> 40), byte(digest >> 32), byte(i)}
		rows = append(rows, row{key: codec.Key{codec.String("blobs"), codec.Bytes(b)}, value: map[string]any{
			"type": pick(w.r, []string{"image/png", "image/jpeg", "application/pdf"}), "size": 1024 + w.r.IntN(1<<20),
		}})
	}
	rows = append(rows, row{key: codec.Key{codec.String("flags"), codec.String("beta-checkout"), codec.Bool(true)},
		value: map[string]any{"rollout": 0.25, "owner": "checkout-team"}})
	for _, class := range Classes() {
		rows = append(rows, row{key: CounterKey(class), value: Counter{N: w.r.IntN(500)}})
	}
	return w.put(rows...)
}

// Counter is the value of a request counter: {"n": count}.
type Counter struct {
	N int `json:"n"`
}

// CounterKey is ["stats", "requests", class], the counter each handled
// request of class increments with check-and-set.
func CounterKey(class string) codec.Key { return key("stats", "requests", class) }

// key builds a key of string parts.
func key(parts ...string) codec.Key {
	k := make(codec.Key, len(parts))
	for i, p := range parts {
		k[i] = codec.String(p)
	}
	return k
}

// message is the value of a queue row: {"body", "attempts"}.
type message struct {
	Body     any `json:"body"`
	Attempts int `json:"attempts"`
}

// queues writes the backlogs: mostly ready messages of various ages, some
// delayed, some redelivered already, and on emails and thumbnails a poison
// message on its final attempt, which the simulation's consumers never
// ack (so it is dropped without trace on its next delivery).
func (w *seeder) queues() error {
	sizes := map[string]int{QueueEmails: 24, QueueThumbnails: 14, QueueInvoices: 8}
	for _, q := range Queues() {
		for i := range sizes[q] {
			m := message{Body: body(w.r, q, i)}
			due := w.at(-between(w.r, 500*time.Millisecond, 90*time.Second))
			switch n := w.r.IntN(10); {
			case n < 2:
				due = w.at(between(w.r, 5*time.Second, 2*time.Minute)) // delayed
			case n < 3:
				m.Attempts = 1 + w.r.IntN(3)
			}
			if q != QueueInvoices && i == sizes[q]-1 {
				m = message{Body: poisonBody(), Attempts: coord.DefaultMaxAttempts - 1}
				due = w.at(-between(w.r, time.Second, 30*time.Second))
			}
			if err := w.put(row{key: coord.QueueKey(q, due, uuid(w.r)), value: m}); err != nil {
				return err
			}
			w.rep.Messages++
		}
	}
	return nil
}

// body is a realistic message body of queue q; i numbers the message.
func body(r *rand.Rand, q string, i int) any {
	u := pick(r, users())
	switch q {
	case QueueEmails:
		return map[string]any{"to": u + "@example.com", "template": pick(r, []string{"welcome", "receipt", "password-reset", "shipping-update"})}
	case QueueThumbnails:
		return map[string]any{"image": fmt.Sprintf("uploads/%s/%04d.jpg", u, i), "sizes": []int{64, 256, 1024}}
	default:
		return map[string]any{"order": 1001 + r.IntN(6), "amountCents": 500 + r.IntN(20000), "currency": "EUR"}
	}
}

// poisonBody is a message the simulation's consumers never ack.
func poisonBody() any {
	return map[string]any{"poison": true, "note": "the consumer rejects this one"}
}

// cron writes the tick rows of past buckets, each won a little after its
// bucket began and expiring one interval after the win, so the older ones
// are expired and not swept. The current bucket is left for the
// simulation to win.
func (w *seeder) cron() error {
	for _, sch := range Schedules() {
		iv := sch.Interval.Milliseconds()
		current := coord.Bucket(w.now, iv)
		for k := int64(6); k >= 1; k-- {
			b := current - k*iv
			won := b + w.r.Int64N(iv/5)
			if err := w.put(row{key: coord.CronKey(sch.Name, b), value: holder{uuid(w.r)}, expiresAt: won + iv}); err != nil {
				return err
			}
			w.rep.CronRows++
		}
	}
	return nil
}

// ttlRows writes cache and session rows with a TTL: some live, some
// expired a while ago and still stored because no sweeper ran.
func (w *seeder) ttlRows() error {
	var rows []row
	for _, o := range Objects(ClassInventory) {
		exp := w.at(between(w.r, 10*time.Second, time.Minute))
		if w.r.IntN(3) == 0 {
			exp = w.at(-between(w.r, 5*time.Second, 2*time.Minute))
		}
		rows = append(rows, row{key: key("cache", "stock", o.Name), value: map[string]any{"available": w.r.IntN(40)}, expiresAt: exp})
	}
	for i, u := range users() {
		exp := w.at(between(w.r, 5*time.Minute, 15*time.Minute))
		if i%3 == 2 {
			exp = w.at(-between(w.r, time.Second, 10*time.Minute))
		}
		rows = append(rows, row{key: key("sessions", uuid(w.r)), value: map[string]any{"user": u}, expiresAt: exp})
	}
	return w.put(rows...)
}
