// Package exporter serves Prometheus metrics of saved stores (kvdeck
// exporter): on each scrape it reads every store once, one statement
// each (coord.ReadPulseQueues: the fleet's pulse with each queue's
// figures), at most Concurrency stores at once, each within Timeout,
// and reports what the reads found and what they cost the server. It
// keeps no figures between scrapes: Prometheus keeps the series.
//
// Built on github.com/prometheus/client_golang: a collector per scrape
// (its registry made for the request, as redis_exporter's /scrape does),
// so /metrics reads every store and /scrape?store=NAME one of them.
package exporter

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"kvdeck/store"
	"kvdeck/store/coord"
)

// Target is one store a scrape reads.
type Target struct {
	Name, Group string
	// Open opens the store read-only and unchecked (the pulse is the
	// schema check), with its own token; the exporter closes it.
	Open func(ctx context.Context) (*store.Store, error)
}

// Options configure the exporter.
type Options struct {
	// Targets lists the stores, read again on each scrape (a store saved
	// meanwhile is scraped).
	Targets func() ([]Target, error)
	// Timeout bounds one store's read (open and statement); zero means
	// DefaultTimeout.
	Timeout time.Duration
	// Concurrency bounds the stores read at once; zero means
	// DefaultConcurrency.
	Concurrency int
	// Now is the store clock the pulse judges expiry by (epoch ms).
	Now func() int64
}

// Defaults of Options.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultConcurrency = 8
)

// Exporter serves the metrics.
type Exporter struct {
	opts Options
}

// New returns an exporter.
func New(o Options) *Exporter {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.Now == nil {
		o.Now = store.SystemClock
	}
	return &Exporter{opts: o}
}

// Handler serves /metrics (every store), /scrape?store=NAME (one, 404
// when no store has that name) and /healthz (the exporter answers; no
// store is read).
func (e *Exporter) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) { e.serve(w, r, "") })
	mux.HandleFunc("/scrape", func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Query().Get("store")
		if name == "" {
			http.Error(w, "/scrape takes ?store=NAME (a saved store); /metrics scrapes them all", http.StatusBadRequest)
			return
		}
		e.serve(w, r, name)
	})
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "kvdeck exporter: /metrics (every saved store), /scrape?store=NAME (one), /healthz")
	})
	return mux
}

// serve answers one scrape: of the store called only, or of all.
func (e *Exporter) serve(w http.ResponseWriter, r *http.Request, only string) {
	targets, err := e.opts.Targets()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if only != "" {
		var one []Target
		for _, t := range targets {
			if t.Name == only {
				one = append(one, t)
			}
		}
		if len(one) == 0 {
			http.Error(w, "no saved store "+strconv.Quote(only), http.StatusNotFound)
			return
		}
		targets = one
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(&collector{e: e, ctx: r.Context(), targets: targets})
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}).ServeHTTP(w, r)
}

// The metrics' descriptions; every one is labelled by store and group
// (queue figures by queue too).
var (
	labels      = []string{"store", "group"}
	queueLabels = []string{"store", "group", "queue"}

	descUp        = prometheus.NewDesc("kvdeck_store_up", "1 when the store was read in this scrape, 0 when it could not be (unreachable, unauthorized, not a store).", labels, nil)
	descRTT       = prometheus.NewDesc("kvdeck_store_round_trip_seconds", "How long the store's one statement took (over a server its one request).", labels, nil)
	descCommits   = prometheus.NewDesc("kvdeck_store_commits_total", "The store's seq: every commit that set a key raised it by one.", labels, nil)
	descRows      = prometheus.NewDesc("kvdeck_store_rows", "The store's rows, expired ones included (an estimate when kvdeck_store_rows_estimated is 1).", labels, nil)
	descEstimated = prometheus.NewDesc("kvdeck_store_rows_estimated", "1 when the row counts are estimated from a sample of at most 4096 rows spread over the store (rows, expired and invalid JSON), 0 when they are exact.", labels, nil)
	descExpired   = prometheus.NewDesc("kvdeck_store_expired_rows", "Rows whose expiry has passed and that no sweep has removed yet.", labels, nil)
	descInvalid   = prometheus.NewDesc("kvdeck_store_invalid_json_rows", "Rows whose value is not valid JSON.", labels, nil)
	descLeases    = prometheus.NewDesc("kvdeck_leases", "Leases by state: held, expiring (little of the default TTL left), expired (not swept; they hold nothing).", append(labels[:2:2], "state"), nil)
	descOverdue   = prometheus.NewDesc("kvdeck_alarms_overdue", "Alarms due at or before now and not fired.", labels, nil)
	descLateness  = prometheus.NewDesc("kvdeck_alarms_worst_lateness_seconds", "How late the oldest overdue alarm is (0 when none is).", labels, nil)
	descQueue     = prometheus.NewDesc("kvdeck_queue_messages", "A queue's messages by state: ready (due), delayed (not yet due), final (on their last attempt).", append(queueLabels[:3:3], "state"), nil)
	descOldest    = prometheus.NewDesc("kvdeck_queue_oldest_ready_age_seconds", "How long the queue's oldest ready message has been due (0 when none is ready).", queueLabels, nil)
	descFindings  = prometheus.NewDesc("kvdeck_doctor_findings", "Findings kvdeck doctor would report, of the codes one statement sees, by severity (error, or any).", append(labels[:2:2], "severity"), nil)
	descRequests  = prometheus.NewDesc("kvdeck_scrape_requests", "Requests this scrape sent the store's server (0 for a file).", labels, nil)
	descBytes     = prometheus.NewDesc("kvdeck_scrape_bytes", "Bytes this scrape sent (direction=sent) and received (direction=received) from the store's server.", append(labels[:2:2], "direction"), nil)
	descServerRow = prometheus.NewDesc("kvdeck_scrape_server_rows", "Rows the server says this scrape read (op=read) and wrote (op=written): what Turso bills by.", append(labels[:2:2], "op"), nil)
	descDuration  = prometheus.NewDesc("kvdeck_scrape_duration_seconds", "How long the store took in this scrape: the open, the statement, and the wait for a token.", labels, nil)
)

// collector reads its targets when Prometheus collects.
type collector struct {
	e       *Exporter
	ctx     context.Context
	targets []Target
}

// Describe sends nothing: the collector is unchecked (its series depend
// on the stores and queues it finds).
func (c *collector) Describe(chan<- *prometheus.Desc) {}

// Collect reads every target, at most Concurrency at once, and sends
// each one's metrics.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	sem := make(chan struct{}, c.e.opts.Concurrency)
	var wg sync.WaitGroup
	for _, t := range c.targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-c.ctx.Done():
				c.down(ch, t, 0)
				return
			}
			defer func() { <-sem }()
			c.read(ch, t)
		}()
	}
	wg.Wait()
}

// down sends a store's up 0 (and how long it took to fail).
func (c *collector) down(ch chan<- prometheus.Metric, t Target, took time.Duration) {
	ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, 0, t.Name, t.Group)
	ch <- prometheus.MustNewConstMetric(descDuration, prometheus.GaugeValue, took.Seconds(), t.Name, t.Group)
}

// read reads one store (its one statement) and sends its metrics.
func (c *collector) read(ch chan<- prometheus.Metric, t Target) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(c.ctx, c.e.opts.Timeout)
	defer cancel()
	s, err := t.Open(ctx)
	if err != nil {
		c.down(ch, t, time.Since(start))
		return
	}
	defer s.Close()
	before := s.Cost()
	at := time.Now()
	p, queues, err := coord.ReadPulseQueues(ctx, s, c.e.opts.Now())
	rtt := time.Since(at)
	if err != nil {
		c.down(ch, t, time.Since(start))
		return
	}
	cost := s.Cost()
	l := []string{t.Name, t.Group}
	gauge := func(d *prometheus.Desc, v float64, extra ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append(l[:2:2], extra...)...)
	}
	gauge(descUp, 1)
	gauge(descRTT, rtt.Seconds())
	if p.Seq != nil {
		ch <- prometheus.MustNewConstMetric(descCommits, prometheus.CounterValue, float64(*p.Seq), l...)
	}
	gauge(descRows, float64(p.Rows))
	gauge(descEstimated, boolValue(p.Estimated))
	gauge(descExpired, float64(p.Expired))
	gauge(descInvalid, float64(p.InvalidJSON))
	gauge(descLeases, float64(p.LeasesHeld), "held")
	gauge(descLeases, float64(p.LeasesExpiring), "expiring")
	gauge(descLeases, float64(p.LeasesExpired), "expired")
	gauge(descOverdue, float64(p.AlarmsOverdue))
	gauge(descLateness, seconds(p.WorstLatenessMs))
	for _, q := range queues {
		// A label is UTF-8: a name another program wrote otherwise
		// shows with U+FFFD where its bytes were not.
		name := strings.ToValidUTF8(q.Name, "\uFFFD")
		gauge(descQueue, float64(q.Ready), name, "ready")
		gauge(descQueue, float64(q.Delayed), name, "delayed")
		gauge(descQueue, float64(q.Final), name, "final")
		gauge(descOldest, seconds(q.OldestReadyMs), name)
	}
	gauge(descFindings, float64(p.Findings), "any")
	gauge(descFindings, float64(p.FindingErrors), "error")
	gauge(descRequests, float64(cost.Requests-before.Requests))
	gauge(descBytes, float64(cost.BytesSent-before.BytesSent), "sent")
	gauge(descBytes, float64(cost.BytesReceived-before.BytesReceived), "received")
	gauge(descServerRow, float64(cost.RowsRead-before.RowsRead), "read")
	gauge(descServerRow, float64(cost.RowsWritten-before.RowsWritten), "written")
	gauge(descDuration, time.Since(start).Seconds())
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// seconds is ms in seconds, never below zero (a clock a little behind
// the store's makes an age negative).
func seconds(ms int64) float64 { return float64(max(ms, 0)) / 1000 }
