package race

import (
	"errors"
	"fmt"
	"strings"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
)

// ErrInvalidStep: a step that cannot apply to the client's state (staging
// before reading, committing with nothing staged, an unknown client).
// Nothing is recorded or written.
var ErrInvalidStep = errors.New("invalid race step")

// MaxClients is how many clients a Stepper can have: A to Z.
const MaxClients = 26

// ClientName is the name of client i: "A", "B", ...
func ClientName(i int) string {
	if i < 0 || i >= MaxClients {
		return fmt.Sprintf("client %d", i)
	}
	return string(rune('A' + i))
}

// StepKind is what a client does in one step.
type StepKind string

// The kinds of step.
const (
	// StepRead reads the counter: the client's snapshot (value and stamp).
	StepRead StepKind = "read"
	// StepStage stages an increment of the snapshot: check(snapshot stamp)
	// + set(snapshot n+1), or only the set when staged naive.
	StepStage StepKind = "stage"
	// StepCommit commits what is staged.
	StepCommit StepKind = "commit"
	// StepRecover is how a loser recovers: read again, then stage again.
	StepRecover StepKind = "recover"
)

// Step is one move of one client; a list of them is an interleaving.
type Step struct {
	// Client is the client's index (0 is A).
	Client int `json:"client"`
	// Kind is what it does.
	Kind StepKind `json:"kind"`
	// Naive is set on stage and recover steps that staged without a check.
	Naive bool `json:"naive,omitempty"`
}

// String is "A read", "B stage (naive)".
func (s Step) String() string {
	out := ClientName(s.Client) + " " + string(s.Kind)
	if s.Naive {
		out += " (naive)"
	}
	return out
}

// Recording is an interleaving that Replay runs again from the same start.
type Recording struct {
	// Start is the counter as the first step read it. Replay resets the key
	// to it ({"n": Start.N}, or deleted when absent).
	Start Counter `json:"start"`
	// Clients is how many clients took part.
	Clients int `json:"clients"`
	// Steps are the steps in the order they were taken.
	Steps []Step `json:"steps"`
}

// Staged is the commit a client has staged.
type Staged struct {
	// Check is false when staged naive: no check, a blind set.
	Check bool
	// Expected is the stamp checked ("" = the key must be absent).
	Expected string
	// N is the value the set writes.
	N int64
}

// String is the commit as the reference would write it:
// check(["k"], 00000000000000000005) + set(["k"], {"n":6}).
func (s Staged) String(key codec.Key) string {
	k := codec.Format(key)
	set := fmt.Sprintf("set(%s, %s)", k, counterValue(s.N))
	if !s.Check {
		return set
	}
	return fmt.Sprintf("check(%s, %s) + %s", k, usertext.StampText(s.Expected), set)
}

// Write is one commit the theater made.
type Write struct {
	// Client is the committing client's name.
	Client string
	// Stamp is the commit's versionstamp.
	Stamp string
	// N is the value written.
	N int64
}

// Outcome is the result of a commit step.
type Outcome struct {
	// Client is the committing client's name.
	Client string
	// OK is true when the commit applied.
	OK bool
	// Stamp is the commit's stamp when OK.
	Stamp string
	// Staged is what was committed.
	Staged Staged
	// Explanation says why the check failed; nil when OK.
	Explanation *Explanation
	// Overwrote lists, for a naive commit that applied, the theater's
	// commits since this client's read: their updates are lost, because
	// this set wrote a value computed from an older read.
	Overwrote []Write
}

// String is one line for a log: "B commit failed: ..." or "A committed
// n=6 at 00000000000000000007".
func (o Outcome) String() string {
	switch {
	case !o.OK && o.Explanation != nil:
		return o.Client + " commit failed: " + o.Explanation.String()
	case !o.OK:
		return o.Client + " commit failed"
	}
	s := fmt.Sprintf("%s committed n=%d at %s", o.Client, o.Staged.N, o.Stamp)
	if len(o.Overwrote) > 0 {
		names := make([]string, len(o.Overwrote))
		for i, w := range o.Overwrote {
			names[i] = fmt.Sprintf("%s's n=%d", w.Client, w.N)
		}
		s += "; it overwrote " + strings.Join(names, ", ") + ": lost update"
	}
	return s
}

// Explanation says why a commit's check failed.
type Explanation struct {
	// Client is the loser's name.
	Client string
	// Expected is the stamp the client read ("" = absent).
	Expected string
	// Actual is the stamp the store holds now ("" = absent).
	Actual string
	// Writer is the theater client whose commit wrote Actual; "" when it
	// was written by a client outside the theater (or the key was deleted).
	Writer string
	// Between lists the theater's commits since the loser's read.
	Between []Write
}

// String explains in one sentence: "B expected 00000000000000000005 (its
// read) but the key is at 00000000000000000006, written by A in between".
func (e Explanation) String() string {
	who := "another client"
	if e.Writer != "" {
		who = e.Writer
	}
	if e.Actual == "" {
		return fmt.Sprintf("%s expected %s (its read) but the key is now absent, deleted by %s in between", e.Client, usertext.StampText(e.Expected), who)
	}
	return fmt.Sprintf("%s expected %s (its read) but the key is at %s, written by %s in between", e.Client, usertext.StampText(e.Expected), e.Actual, who)
}

// Event is one recorded step with what it did, for the theater's log.
type Event struct {
	Step Step
	// Read is the counter the step read (read and recover).
	Read *Counter
	// Staged is what the step staged (stage and recover).
	Staged *Staged
	// Outcome is the commit's result (commit).
	Outcome *Outcome
}

// String is one log line.
func (e Event) String() string {
	name := ClientName(e.Step.Client)
	switch {
	case e.Outcome != nil:
		return e.Outcome.String()
	case e.Read != nil && e.Staged != nil:
		return fmt.Sprintf("%s recovered: read n=%d at %s, staged n=%d", name, e.Read.N, usertext.StampText(e.Read.Stamp), e.Staged.N)
	case e.Read != nil:
		return fmt.Sprintf("%s read n=%d at %s", name, e.Read.N, usertext.StampText(e.Read.Stamp))
	case e.Staged != nil && !e.Staged.Check:
		return fmt.Sprintf("%s staged n=%d without a check", name, e.Staged.N)
	case e.Staged != nil:
		return fmt.Sprintf("%s staged n=%d if the stamp is still %s", name, e.Staged.N, usertext.StampText(e.Staged.Expected))
	}
	return e.Step.String()
}

// ClientState is what the theater shows for one client.
type ClientState struct {
	// Name is "A", "B", ...
	Name string
	// Snapshot is the client's last read; nil before its first.
	Snapshot *Counter
	// Staged is the staged commit; nil when nothing is staged.
	Staged *Staged
	// Last is the outcome of the client's last commit; nil before its first.
	Last *Outcome
}
