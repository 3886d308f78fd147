package coord_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// The child role of TestQueueTwoBrokerProcesses: these variables carry the
// server URL and the file the child appends its delivered ids to.
const (
	envChildURL = "KVDECK_COORD_BROKER_CHILD_URL"
	envChildOut = "KVDECK_COORD_BROKER_CHILD_OUT"
)

// Two brokers in two OS processes poll one sqld: every message is
// delivered exactly once.
func TestQueueTwoBrokerProcesses(t *testing.T) {
	if os.Getenv(envChildURL) != "" {
		t.Skip("this process is a child")
	}
	srv := sqldtest.Start(t)
	s, err := store.Open(storetest.Ctx(t), srv.URL, store.Options{})
	must(t, err)
	defer s.Close()
	const n = 150
	reqs := make([]coord.SendRequest, n)
	for i := range reqs {
		reqs[i] = coord.SendRequest{Body: []byte(fmt.Sprint(i))}
	}
	sent, err := coord.SendBatch(storetest.Ctx(t), s, "jobs", reqs, 0)
	must(t, err)

	dir := t.TempDir()
	cx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var cmds []*exec.Cmd
	for i := range 2 {
		cmd := exec.CommandContext(cx, os.Args[0], "-test.run=^TestQueueBrokerChild$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), envChildURL+"="+srv.URL, envChildOut+"="+filepath.Join(dir, fmt.Sprintf("child%d.txt", i)))
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		must(t, cmd.Start())
		cmds = append(cmds, cmd)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("child %d output:\n%s", i, out.String())
			}
		})
	}
	// Start both pollers together once both processes are up.
	for i := range cmds {
		waitFile(t, filepath.Join(dir, fmt.Sprintf("child%d.txt.ready", i)))
	}
	must(t, os.WriteFile(filepath.Join(dir, "go"), nil, 0o644))
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v", i, err)
		}
	}
	count := map[string]int{}
	for i := range cmds {
		ids := readLines(t, filepath.Join(dir, fmt.Sprintf("child%d.txt", i)))
		t.Logf("child %d delivered %d messages", i, len(ids))
		for _, id := range ids {
			count[id]++
		}
	}
	for _, id := range sent {
		if count[id] != 1 {
			t.Errorf("message %s delivered %d times", id, count[id])
		}
		delete(count, id)
	}
	if len(count) != 0 {
		t.Errorf("unknown deliveries: %v", count)
	}
}

// TestQueueBrokerChild is the child process of TestQueueTwoBrokerProcesses:
// it polls until the queue stays empty, acking everything and appending
// each delivered id to its file before the ack takes effect.
func TestQueueBrokerChild(t *testing.T) {
	url, path := os.Getenv(envChildURL), os.Getenv(envChildOut)
	if url == "" {
		t.Skip("runs only as a child of TestQueueTwoBrokerProcesses")
	}
	s, err := store.Open(storetest.Ctx(t), url, store.Options{})
	must(t, err)
	defer s.Close()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	must(t, err)
	defer f.Close()
	must(t, os.WriteFile(path+".ready", nil, 0o644))
	waitFile(t, filepath.Join(filepath.Dir(path), "go"))
	b := coord.NewBroker(s)
	b.Consume("jobs", func(_ context.Context, batch *coord.Batch) error {
		time.Sleep(5 * time.Millisecond) // give the other process room to interleave
		for _, m := range batch.Messages {
			if _, err := fmt.Fprintln(f, m.ID); err != nil {
				return err
			}
			m.Ack()
		}
		return nil
	}, coord.ConsumerOptions{MaxBatchSize: 7})
	for empty := 0; empty < 5; {
		d, err := b.Poll(storetest.Ctx(t), s.Now())
		must(t, err)
		if len(d) == 0 {
			empty++
			time.Sleep(20 * time.Millisecond)
			continue
		}
		empty = 0
	}
}

// waitFile waits for path to exist.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s did not appear", path)
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	must(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	must(t, sc.Err())
	return out
}
