package exporter_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"kvdeck/internal/exporter"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// scrape GETs path and parses the answer with Prometheus's text parser.
func scrape(t *testing.T, srv *httptest.Server, path string) (map[string]*dto.MetricFamily, int) {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		return nil, resp.StatusCode
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("%s: not Prometheus text: %v", path, err)
	}
	return fams, resp.StatusCode
}

// value is the value of the series of name whose labels include want
// (label=value pairs); ok false when there is none.
func value(fams map[string]*dto.MetricFamily, name string, want ...string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(want); i += 2 {
			if have[want[i]] != want[i+1] {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		}
	}
	return 0, false
}

// TestExporterAgreesWithPulse: /metrics reads a file store and an sqld
// store, one statement each, and says what coord.ReadPulseQueues says,
// queue by queue; /scrape?store=NAME reads one (404 for a name no store
// has); a store that cannot be opened is up 0; /healthz reads none.
func TestExporterAgreesWithPulse(t *testing.T) {
	ctx := storetest.Ctx(t)
	urls := map[string]string{"file": storetest.File().URL(t), "sqld": storetest.SQLD().URL(t)}
	for _, url := range urls {
		w := storetest.Open(t, url, store.Options{Clock: func() int64 { return storetest.T0 }})
		for i, q := range []string{"mail", "mail", "sms"} {
			if _, err := w.Set(ctx, coord.QueueKey(q, storetest.T0-int64(i+1)*1000, "m"+string(rune('a'+i))), []byte(`{"body":1,"attempts":0}`), nil); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Set(ctx, coord.LeaseKey("job", "x"), []byte(`{"holder":"00000000-0000-4000-8000-000000000001"}`), nil); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	var opens atomic.Int64
	targets := []exporter.Target{{Name: "broken", Group: "g", Open: func(context.Context) (*store.Store, error) {
		return nil, store.ErrUnreachable
	}}}
	for _, name := range []string{"file", "sqld"} {
		targets = append(targets, exporter.Target{Name: name, Group: "g", Open: func(ctx context.Context) (*store.Store, error) {
			opens.Add(1)
			return store.Open(ctx, urls[name], store.Options{ReadOnly: true, Unchecked: true})
		}})
	}
	e := exporter.New(exporter.Options{Targets: func() ([]exporter.Target, error) { return targets, nil }, Now: func() int64 { return storetest.T0 }})
	srv := httptest.NewServer(e.Handler())
	t.Cleanup(srv.Close)

	fams, code := scrape(t, srv, "/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	if v, ok := value(fams, "kvdeck_store_up", "store", "broken"); !ok || v != 0 {
		t.Errorf("the broken store's up: %v %v", v, ok)
	}
	for name, url := range urls {
		s := storetest.Open(t, url, store.Options{ReadOnly: true})
		p, queues, err := coord.ReadPulseQueues(ctx, s, storetest.T0)
		if err != nil {
			t.Fatal(err)
		}
		check := func(metric string, want float64, labels ...string) {
			t.Helper()
			if v, ok := value(fams, metric, append([]string{"store", name, "group", "g"}, labels...)...); !ok || v != want {
				t.Errorf("%s %s %v: %v (found %v), want %v", name, metric, labels, v, ok, want)
			}
		}
		check("kvdeck_store_up", 1)
		check("kvdeck_store_commits_total", float64(*p.Seq))
		check("kvdeck_store_rows", float64(p.Rows))
		check("kvdeck_leases", float64(p.LeasesHeld), "state", "held")
		check("kvdeck_store_expired_rows", float64(p.Expired))
		check("kvdeck_doctor_findings", float64(p.Findings), "severity", "any")
		if len(queues) != 2 {
			t.Fatalf("queues %+v", queues)
		}
		for _, q := range queues {
			check("kvdeck_queue_messages", float64(q.Ready), "queue", q.Name, "state", "ready")
			check("kvdeck_queue_oldest_ready_age_seconds", float64(q.OldestReadyMs)/1000, "queue", q.Name)
		}
		wantRequests := 0.0
		if name == "sqld" {
			wantRequests = 1 // the one statement, the schema check with it
		}
		check("kvdeck_scrape_requests", wantRequests)
	}
	if n := opens.Load(); n != 2 {
		t.Errorf("one scrape opened the stores %d times", n)
	}

	one, code := scrape(t, srv, "/scrape?store=sqld")
	if code != http.StatusOK {
		t.Fatalf("/scrape: %d", code)
	}
	if _, ok := value(one, "kvdeck_store_up", "store", "file"); ok {
		t.Error("/scrape?store=sqld read the file store too")
	}
	if v, ok := value(one, "kvdeck_store_up", "store", "sqld"); !ok || v != 1 {
		t.Errorf("/scrape?store=sqld: up %v %v", v, ok)
	}
	if _, code := scrape(t, srv, "/scrape?store=nope"); code != http.StatusNotFound {
		t.Errorf("/scrape of an unknown store: %d", code)
	}
	before := opens.Load()
	resp, err := http.Get(srv.URL + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK || opens.Load() != before {
		t.Errorf("/healthz: %v %v, opens %d -> %d", resp, err, before, opens.Load())
	}
	resp.Body.Close()
}

// TestExporterBounds: a store that hangs is up 0 once the timeout
// passes, without holding up the scrape longer; at most Concurrency
// stores are read at once.
func TestExporterBounds(t *testing.T) {
	var in, most atomic.Int64
	hang := func(ctx context.Context) (*store.Store, error) {
		n := in.Add(1)
		defer in.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	var targets []exporter.Target
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		targets = append(targets, exporter.Target{Name: name, Open: hang})
	}
	e := exporter.New(exporter.Options{Targets: func() ([]exporter.Target, error) { return targets, nil }, Timeout: 200 * time.Millisecond, Concurrency: 2})
	srv := httptest.NewServer(e.Handler())
	t.Cleanup(srv.Close)
	start := time.Now()
	fams, _ := scrape(t, srv, "/metrics")
	took := time.Since(start)
	for _, tg := range targets {
		if v, ok := value(fams, "kvdeck_store_up", "store", tg.Name); !ok || v != 0 {
			t.Errorf("%s: up %v %v", tg.Name, v, ok)
		}
	}
	if m := most.Load(); m > 2 {
		t.Errorf("%d stores read at once, the bound is 2", m)
	}
	// Six stores, two at a time, 200 ms each: three rounds.
	if took < 550*time.Millisecond || took > 10*time.Second {
		t.Errorf("the scrape took %s", took)
	}
}
