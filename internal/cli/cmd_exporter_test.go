package cli

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
)

// metricValues are a scrape's series: name, then labels in the order the
// text gives them, to value.
func metricValues(fams map[string]*dto.MetricFamily, name string, match map[string]string) []float64 {
	var out []float64
next:
	for _, m := range fams[name].GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range match {
			if have[k] != v {
				continue next
			}
		}
		if m.Counter != nil {
			out = append(out, m.GetCounter().GetValue())
		} else {
			out = append(out, m.GetGauge().GetValue())
		}
	}
	return out
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// TestExporterAgreesWithFleet: kvdeck exporter, scraped and parsed with
// Prometheus's text parser, says what kvdeck fleet -o json says of the
// same stores at the same clock (a file store with leases, alarms and
// queues, an sqld store, and one that cannot be read, up 0), its queue
// figures summed over the queues; it stops on interrupt with exit 0.
func TestExporterAgreesWithFleet(t *testing.T) {
	env := storesEnv(t)
	t0 := storetest.T0
	at := func(url string, now int64, args ...string) { t.Helper(); mustAt(t, env, url, now, args...) }
	busy := "file:" + filepath.Join(t.TempDir(), "busy.db")
	at(busy, t0-60_000, "lease", "acquire", `["dwk_lease", "job", "ab"]`, "--ttl", "30s")
	at(busy, t0-60_000, "lease", "acquire", `["dwk_lease", "long", "cd"]`, "--ttl", "10m")
	at(busy, t0-60_000, "alarm", "set", "Cart", "a", "+10s")
	at(busy, t0-60_000, "alarm", "set", "Cart", "b", "+30s")
	at(busy, t0-60_000, "queue", "send", "mail", `{"n":1}`)
	at(busy, t0-30_000, "queue", "send", "mail", `{"n":2}`)
	at(busy, t0-30_000, "queue", "send", "sms", `{"n":3}`, "--delay", "1h")
	at(busy, t0-60_000, "set", `["tmp"]`, "1", "--expire-in", "10s")
	server := sqldtest.Start(t)
	at(server.URL, t0, "set", `["a"]`, "1")
	configFile(t, env, `[stores.busy]
url = "`+busy+`"
group = "g"

[stores.server]
url = "`+server.URL+`"
group = "g"

[stores.gone]
url = "file:`+filepath.Join(t.TempDir(), "missing.db")+`"
group = "g"
`, 0o600)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stderr bytes.Buffer
	go func() {
		done <- Main(ctx, []string{"--now", strconv.FormatInt(t0, 10), "exporter", "--listen", addr}, strings.NewReader(""), &bytes.Buffer{}, &stderr, env)
	}()
	var resp *http.Response
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resp, err = http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the exporter did not answer: %v", err)
		}
	}
	resp, err = http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("the exporter ended with %d: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the exporter did not stop on interrupt")
	}

	r := runMain(t, env, "", []string{"--now", strconv.FormatInt(t0, 10), "fleet", "-o", "json"})
	rows := statusRows(t, r.stdout)
	if len(rows) != 3 || rows["gone"].Status != "error" || rows["busy"].QueueReady != 2 || rows["busy"].AlarmsOverdue != 2 {
		t.Fatalf("fleet: %+v", rows)
	}
	for name, row := range rows {
		one := map[string]string{"store": name, "group": "g"}
		got := func(metric string, extra ...string) float64 {
			t.Helper()
			m := map[string]string{"store": name}
			for i := 0; i+1 < len(extra); i += 2 {
				m[extra[i]] = extra[i+1]
			}
			v := metricValues(fams, metric, m)
			if len(v) == 0 && !strings.HasPrefix(metric, "kvdeck_queue_") {
				t.Errorf("%s: no %s %v", name, metric, extra)
			}
			return sum(v)
		}
		up := metricValues(fams, "kvdeck_store_up", one)
		if row.Status == "error" {
			if len(up) != 1 || up[0] != 0 {
				t.Errorf("%s: up %v for an error row", name, up)
			}
			continue
		}
		if len(up) != 1 || up[0] != 1 {
			t.Errorf("%s: up %v", name, up)
		}
		for _, c := range []struct {
			what      string
			got, want float64
		}{
			{"seq", got("kvdeck_store_commits_total"), float64(*row.Seq)},
			{"rows", got("kvdeck_store_rows"), float64(row.Rows)},
			{"leases held", got("kvdeck_leases", "state", "held"), float64(row.LeasesHeld)},
			{"leases expiring", got("kvdeck_leases", "state", "expiring"), float64(row.LeasesExpiring)},
			{"leases expired", got("kvdeck_leases", "state", "expired"), float64(row.LeasesExpired)},
			{"alarms overdue", got("kvdeck_alarms_overdue"), float64(row.AlarmsOverdue)},
			{"worst lateness", got("kvdeck_alarms_worst_lateness_seconds") * 1000, float64(row.WorstLatenessMS)},
			{"queue ready", got("kvdeck_queue_messages", "state", "ready"), float64(row.QueueReady)},
			{"queue delayed", got("kvdeck_queue_messages", "state", "delayed"), float64(row.QueueDelayed)},
			{"queue final", got("kvdeck_queue_messages", "state", "final"), float64(row.QueueFinal)},
			{"expired", got("kvdeck_store_expired_rows"), float64(row.Expired)},
			{"findings", got("kvdeck_doctor_findings", "severity", "any"), float64(row.Findings)},
			{"finding errors", got("kvdeck_doctor_findings", "severity", "error"), float64(row.FindingErrors)},
		} {
			if c.got != c.want {
				t.Errorf("%s %s: exporter %v, fleet %v", name, c.what, c.got, c.want)
			}
		}
		oldest := 0.0
		for _, v := range metricValues(fams, "kvdeck_queue_oldest_ready_age_seconds", one) {
			oldest = max(oldest, v)
		}
		if oldest*1000 != float64(row.OldestReadyMS) {
			t.Errorf("%s oldest ready: exporter %vs, fleet %dms", name, oldest, row.OldestReadyMS)
		}
	}
	if v := metricValues(fams, "kvdeck_scrape_requests", map[string]string{"store": "server"}); len(v) != 1 || v[0] != 1 {
		t.Errorf("the sqld store's scrape cost %v requests, want 1", v)
	}
}
