// Package demo builds a living coordination store for `kvdeck demo`: Seed
// writes the state a few services leave behind (leases, alarms, queue
// backlogs, cron buckets, TTL'd rows and the weak spots an operator should
// spot), and Simulate runs several replicas over it with the real
// store/coord libraries, so that contention, retries, redeliveries and
// expiry happen while someone watches. It knows nothing of terminals.
//
// Files: catalog.go (the classes, objects, queues and schedules both use),
// seed.go (Seed) and seed_rows.go (the rows of each area), sim.go
// (Simulate and its Summary), replica.go (one replica's poll loop and
// handlers), work.go (request handling and the producer). docs/demo.md
// tells users what the demo shows.
package demo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"time"

	"kvdeck/codec"
)

// The service classes of the demo: each has objects whose leases and
// alarms live under ["dwk_lease", class, id] and ["dwk_alarm_*", class, ...].
const (
	ClassCart      = "Cart"
	ClassCheckout  = "Checkout"
	ClassInventory = "Inventory"
	ClassTicker    = "Ticker"
)

// The queues of the demo.
const (
	QueueEmails     = "emails"
	QueueThumbnails = "thumbnails"
	QueueInvoices   = "invoices"
)

// Object is one coordination object: a class and the 32-hex id derived
// from its name.
type Object struct {
	Class string
	Name  string
	ID    string
}

// ID derives an object id the way the reference's services do: the first
// 32 hex digits of the SHA-256 of the object's name.
func ID(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:16])
}

// Classes returns the service classes, in the order replicas poll them.
func Classes() []string {
	return []string{ClassCart, ClassCheckout, ClassInventory, ClassTicker}
}

// Objects returns the objects of class, in a fixed order.
func Objects(class string) []Object {
	var names []string
	switch class {
	case ClassCart:
		names = []string{"cart:alice", "cart:bob", "cart:carol", "cart:dave", "cart:erin", "cart:frank", "cart:grace", "cart:heidi"}
	case ClassCheckout:
		names = []string{"order-1001", "order-1002", "order-1003", "order-1004", "order-1005", "order-1006"}
	case ClassInventory:
		names = []string{"sku-kettle", "sku-mug", "sku-teapot", "sku-lamp", "sku-chair", "sku-desk"}
	case ClassTicker:
		names = []string{"ticker:EURUSD", "ticker:USDJPY", "ticker:GBPUSD", "ticker:GBPJPY"}
	}
	out := make([]Object, len(names))
	for i, n := range names {
		out[i] = Object{Class: class, Name: n, ID: ID(n)}
	}
	return out
}

// The objects the seed gives a story: two poison objects (their alarm
// handler always fails; one has a retry left, the other none), an alarm
// whose claimer crashed (by-id without a due entry) and a stale due entry
// without a by-id record.
const (
	poisonRetrying = "order-1004"    // Checkout, retry 5 of 6
	poisonFinal    = "sku-lamp"      // Inventory, retry 6 of 6
	neverFires     = "cart:heidi"    // Cart
	orphanDue      = "ticker:GBPJPY" // Ticker
)

// poison reports whether o's alarm handler always fails.
func poison(o Object) bool { return o.Name == poisonRetrying || o.Name == poisonFinal }

// storied reports whether o is one of the seed's stories, whose alarm the
// simulation's requests and producer leave alone so that the anomaly stays
// for the user to find (a poison alarm still retries and drops).
func storied(o Object) bool { return poison(o) || o.Name == neverFires || o.Name == orphanDue }

// Queues returns the queues, in the order a broker registers them.
func Queues() []string { return []string{QueueEmails, QueueThumbnails, QueueInvoices} }

// Schedule is one cron schedule of the demo.
type Schedule struct {
	Name     string
	Interval time.Duration
}

// Schedules returns the cron schedules replicas claim ticks of.
func Schedules() []Schedule {
	return []Schedule{{"heartbeat", 5 * time.Second}, {"cleanup", 15 * time.Second}, {"digest", time.Minute}}
}

// users are the people of the app data, the sessions and the emails.
func users() []string {
	return []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"}
}

// MarkerKey is the row that makes a store a demo store:
// ["kvdeck_demo", "seeded"] = {"seed", "seededAt", "version"}.
func MarkerKey() codec.Key { return codec.Key{codec.String("kvdeck_demo"), codec.String("seeded")} }

// MarkerVersion is the version of the seeded content recorded in the marker.
const MarkerVersion = 1

// uuid returns a version 4 UUID drawn from r, so that a seed yields the
// same ids every time.
func uuid(r *rand.Rand) string {
	a, b := r.Uint64(), r.Uint64()
	a = a&^(0xf<<12) | 0x4<<12 // version 4 (bits 12-15 of the third group)
	b = b&^(0x3<<62) | 0x2<<62 // RFC 4122 variant
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, a>>16&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}

// pick returns a random element of xs.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// between returns a random duration in [lo, hi).
func between(r *rand.Rand, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(r.Int64N(int64(hi-lo)))
}
