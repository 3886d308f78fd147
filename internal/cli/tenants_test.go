package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
)

// TestNamespacedStores: two stores in two namespaces of one sqld reached
// by its IP address, saved with kvdeck stores add (one by --namespace
// with the admin API, which creates it; one by ?namespace= in the URL):
// each sees only its own rows, fleet shows both with the namespace's
// figures and blocked flags from the admin API, and copy goes from one
// to the other.
func TestNamespacedStores(t *testing.T) {
	srv := sqldtest.Start(t, sqldtest.WithNamespaces())
	srv.CreateNamespace(t, "beta")
	env := storesEnv(t)
	now := strconv.FormatInt(storetest.T0, 10)
	run := func(args ...string) result {
		t.Helper()
		return runMain(t, env, "", append([]string{"--now", now}, args...))
	}
	must := func(args ...string) string {
		t.Helper()
		r := run(args...)
		if r.code != 0 {
			t.Fatalf("kvdeck %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
		return r.stdout
	}
	out := must("stores", "add", "alpha", srv.URL, "--namespace", "alpha", "--admin", srv.AdminURL, "--create-namespace", "--writable", "-g", "tenants")
	if !strings.Contains(out, "created namespace alpha") {
		t.Errorf("stores add --create-namespace: %s", out)
	}
	must("stores", "add", "beta", srv.URL+"?namespace=beta", "--admin", srv.AdminURL, "--writable", "-g", "tenants")
	if show := must("stores", "show", "alpha"); !strings.Contains(show, "namespace") || !strings.Contains(show, "alpha (x-namespace-bin") {
		t.Errorf("stores show: %s", show)
	}
	must("--store", "alpha", "set", `["tenant", "a"]`, `"alpha"`)
	must("--store", "alpha", "set", `["only", "alpha"]`, `1`)
	must("--store", "beta", "set", `["tenant", "b"]`, `"beta"`)
	if l := must("--store", "alpha", "list", "-o", "json"); strings.Contains(l, "beta") || strings.Count(l, "\n") != 2 {
		t.Errorf("alpha lists:\n%s", l)
	}
	if l := must("--store", "beta", "list", "-o", "json"); strings.Contains(l, "alpha") || strings.Count(l, "\n") != 1 {
		t.Errorf("beta lists:\n%s", l)
	}
	if r := runMain(t, env, "", []string{"--db", srv.URL, "--read-only", "list"}); r.code == 0 {
		t.Errorf("the server's URL without a namespace listed: %s", r.stdout)
	}

	rows := statusRows(t, must("fleet", "-o", "json"))
	a, b := rows["alpha"], rows["beta"]
	if a.Status != "ok" || b.Status != "ok" || a.Rows != 2 || b.Rows != 1 {
		t.Fatalf("fleet rows: %+v %+v", a, b)
	}
	if a.RowsWritten == nil || *a.RowsWritten == 0 || a.StorageBytes == nil || a.Blocked != "" || a.Error != "" {
		t.Errorf("alpha's namespace figures: %+v", a.tenancyFacts)
	}
	if text := must("fleet"); !strings.Contains(text, "PLATFORM") {
		t.Errorf("fleet's table has no PLATFORM column:\n%s", text)
	}

	must("copy", "--from", "alpha", "--to", "beta", `["only"]`)
	if l := must("--store", "beta", "get", `["only", "alpha"]`); !strings.Contains(l, `["only", "alpha"]  1`) {
		t.Errorf("beta after the copy: %q", l)
	}

	// The admin API blocks beta's writes: the fleet says so, and a write
	// is refused by the server.
	req, _ := http.NewRequest(http.MethodPost, srv.AdminURL+"/v1/namespaces/beta/config", strings.NewReader(`{"block_reads":false,"block_writes":true,"block_reason":"quota"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("block beta: %v %v", resp, err)
	}
	resp.Body.Close()
	b = statusRows(t, must("fleet", "-o", "json"))["beta"]
	if b.Blocked != "writes" || b.BlockReason != "quota" {
		t.Errorf("beta blocked: %+v", b.tenancyFacts)
	}
	if r := run("--store", "beta", "set", `["x"]`, "1"); r.code == 0 || !strings.Contains(r.stderr, "blocked") {
		t.Errorf("a write to a blocked namespace: %+v", r)
	}
}

// TestReplicaStore: a saved store with a replica takes writes (sent to
// the primary) and the fleet shows the replica's lag. (That a store
// reads its own writes from the replica at once is the store's test:
// TestReplicaReadsAfterOwnWrite.)
func TestReplicaStore(t *testing.T) {
	primary := sqldtest.Start(t, sqldtest.WithGRPC())
	replica := sqldtest.StartReplica(t, primary)
	env := storesEnv(t)
	if r := runMain(t, env, "", []string{"stores", "add", "r", primary.URL, "--read-replica", replica.URL, "--writable"}); r.code != 0 {
		t.Fatalf("stores add: %+v", r)
	}
	for i := range 20 {
		if r := runMain(t, env, "", []string{"--store", "r", "set", `["k"]`, strconv.Itoa(i)}); r.code != 0 {
			t.Fatalf("set: %+v", r)
		}
	}
	r := runMain(t, env, "", []string{"fleet", "-o", "json"})
	row := statusRows(t, r.stdout)["r"]
	if row.Status != "ok" || row.ReplicaLag == nil || *row.ReplicaLag < 0 {
		t.Errorf("fleet row of a store with a replica: %+v (%s)", row, r.stderr)
	}
}

// TestAtNowForksTheNamespace: --at now on a namespaced sqld store reads
// a fork of its namespace made for the command (that a fork holds its
// moment and not later writes is TestSqldNamespaces'), deleted when the
// command ends; an earlier time is refused with the reason (sqld forks
// the present), and so is a write.
func TestAtNowForksTheNamespace(t *testing.T) {
	srv := sqldtest.Start(t, sqldtest.WithNamespaces())
	env := storesEnv(t)
	run := func(args ...string) result { t.Helper(); return runMain(t, env, "", args) }
	if r := run("stores", "add", "ns", srv.URL, "--namespace", "alpha", "--admin", srv.AdminURL, "--create-namespace", "--writable"); r.code != 0 {
		t.Fatalf("stores add: %+v", r)
	}
	if r := run("--store", "ns", "set", `["k"]`, "1"); r.code != 0 {
		t.Fatalf("set: %+v", r)
	}
	r := run("--store", "ns", "--at", "now", "get", `["k"]`)
	if r.code != 0 || !strings.Contains(r.stdout, `["k"]  1`) || !strings.Contains(r.stderr, "fork of sqld namespace alpha made now") {
		t.Fatalf("--at now: %+v", r)
	}
	dbs, err := os.ReadDir(filepath.Join(srv.Dir, "data.sqld", "dbs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dbs {
		if strings.HasPrefix(d.Name(), "alpha-at-") {
			t.Errorf("the fork %s is left on the server", d.Name())
		}
	}
	if r := run("--store", "ns", "--at=-1h", "get", `["k"]`); r.code == 0 || !strings.Contains(r.stderr, "sqld forks the present") {
		t.Errorf("--at -1h: %+v", r)
	}
	if r := run("--store", "ns", "--at", "now", "set", `["k"]`, "2"); r.code == 0 || !strings.Contains(r.stderr, "read-only") {
		t.Errorf("a write under --at now: %+v", r)
	}
}
