package tui

import (
	"context"
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	kvhist "kvdeck/internal/history"
	"kvdeck/internal/journal"
	"kvdeck/internal/storetest"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/viewtest"
)

// overlayModel is a root model at 120x40 over a journaled copy of the
// reference store, with saved stores (none) to list and probe: every
// overlay can open over it.
func overlayModel(t *testing.T) model {
	t.Helper()
	s, _, clock, _ := journaledStore(t, journal.Options{Dir: t.TempDir()}, nil)
	cfg := Config{Clock: clock,
		Stores: func() ([]tuiconfig.SavedStore, error) { return nil, nil },
		OpenStore: func(context.Context, string) (*store.Store, tuiconfig.SavedStore, error) {
			return nil, tuiconfig.SavedStore{}, nil
		},
		OpenProbe: func(context.Context, string) (*store.Store, error) { return nil, nil }}
	m := newModel(s, cfg, themes.NewStyles(themes.Dark()), func(string) error { return nil })
	m.setSize(120, 40)
	return m
}

// send hands msg to the root (its commands are not run) and returns the
// root after.
func send(m model, msgs ...tea.Msg) model {
	for _, msg := range msgs {
		next, _ := m.Update(msg)
		m = next.(model)
	}
	return m
}

// overlayOpeners open each overlay over m as the user does (a global key,
// a command), or with the message that opens it (a question, a bulk
// menu, a run): one per layer of overlayTable.
func overlayOpeners() map[layer]func(model) model {
	marked := views.BulkMsg{What: "2 keys", Keys: []codec.Key{{codec.String("a")}, {codec.String("b")}},
		Actions: []views.BulkAction{{Key: "d", Name: "delete"}}}
	key := func(names ...string) func(model) model {
		return func(m model) model {
			for _, n := range names {
				m = send(m, viewtest.Key(n))
			}
			return m
		}
	}
	return map[layer]func(model) model{
		layerFleet:   key("F"),
		layerCommand: key(":"),
		layerFinder:  func(m model) model { return send(m, tea.KeyMsg{Type: tea.KeyCtrlP}) },
		layerPicker:  key("O"),
		layerUndo:    key("z"),
		// :at alone at a point: the point shown is the store itself,
		// handed as the answer of an :at (kvhist.Machine.At is tested
		// on real sources in internal/history and internal/cli).
		layerPoints: func(m model) model {
			src := kvhist.RecordingSource{R: &kvhist.Recording{}}
			pts := []kvhist.Point{{TXID: 1, At: storetest.T0}, {TXID: 2, At: storetest.T0 + 1000}}
			p := &kvhist.Past{Store: m.store, Source: src, Points: pts, Choice: kvhist.Choice{Point: pts[0], Of: 2}}
			return key(":", "a", "t", "enter")(send(m, pastOpened{gen: m.tm.gen, past: p}))
		},
		layerKeyHistory: func(m model) model {
			return send(m, views.KeyHistoryMsg{Key: codec.Key{codec.String("a")}, Raw: codec.MustEncode(codec.Key{codec.String("a")})})
		},
		layerLog:      func(m model) model { return send(key(":", "l", "o", "g")(m), viewtest.Key("enter")) },
		layerHelp:     key("?"),
		layerJump:     func(m model) model { m.awaitJump(func() tea.Msg { return nil }); return m },
		layerBulkMenu: func(m model) model { return send(m, marked) },
		layerExport:   func(m model) model { return send(m, marked, viewtest.Key("o")) },
		layerBulkRun: func(m model) model {
			return send(m, bulkStart{session: m.session, name: "delete", plan: store.BulkPlan{Commits: [][]store.BulkUnit{{}}}})
		},
		layerDialog: func(m model) model { return send(m, views.ConfirmMsg{Title: "Delete?", Yes: "delete"}) },
	}
}

// TestOverlayTable: every overlay is in overlayTable once, named, with
// the global key that opens it (a field of GlobalKeys); opened as the
// user opens it, it is the top of the stack, takes a key meant for the
// tabs (2 does not switch to Leases), and changes the screen (the jump
// in flight draws nothing: it holds the keys).
func TestOverlayTable(t *testing.T) {
	openers := overlayOpeners()
	if len(openers) != int(numLayers) {
		t.Fatalf("%d openers for %d layers", len(openers), numLayers)
	}
	gk := reflect.TypeOf(GlobalKeys{})
	base := overlayModel(t)
	plain := base.View()
	for l := range numLayers {
		def := overlayTable[l]
		if def.name == "" || def.opens == "" {
			t.Errorf("layer %d has no name or no words on what opens it", l)
		}
		if _, ok := gk.FieldByName(def.global); def.global != "" && !ok {
			t.Errorf("%s: %q is no global key", l, def.global)
		}
		m := openers[l](base)
		open := m.overlays.topDown()
		if len(open) != 1 || open[0].layer() != l {
			t.Errorf("%s: the stack holds %d overlays after it opened, the top %v", l, len(open), open)
			continue
		}
		if l != layerJump && m.View() == plain {
			t.Errorf("%s: the screen did not change", l)
		}
		if m = send(m, viewtest.Key("2")); m.tab != tabBrowse {
			t.Errorf("%s: 2 went past it to the tabs", l)
		}
	}
}

// TestOverlayStackOrder: an overlay opened goes to its layer, not to the
// top: a bulk menu whose message comes after a question stays under it
// (the question takes the keys), and opening an overlay that is open
// replaces it.
func TestOverlayStackOrder(t *testing.T) {
	openers := overlayOpeners()
	m := openers[layerDialog](openers[layerHelp](overlayModel(t)))
	m = openers[layerBulkMenu](m)
	var got []layer
	for _, o := range m.overlays.topDown() {
		got = append(got, o.layer())
	}
	if want := []layer{layerDialog, layerBulkMenu, layerHelp}; !reflect.DeepEqual(got, want) {
		t.Fatalf("stack %v, want %v", got, want)
	}
	m = send(m, views.ConfirmMsg{Title: "Other?"})
	if n := len(m.overlays.open); n != 3 || !strings.Contains(m.View(), "Other?") {
		t.Fatalf("a second question did not replace the first: %d overlays", n)
	}
	m = send(m, viewtest.Key("n"))
	if m.dialog() != nil || m.menu() == nil {
		t.Fatalf("n answered the question: dialog %v, menu %v", m.dialog(), m.menu())
	}
	if m = send(m, viewtest.Key("esc")); m.menu() != nil || !m.overlays.has(layerHelp) {
		t.Fatalf("esc closed the menu, the help stays: menu %v, help %v", m.menu(), m.overlays.has(layerHelp))
	}
}

// TestOverlayAnswers: an answer goes to the overlay that holds its
// generation; once that overlay has closed or asked again, it is
// dropped (an undo's outcome is still said).
func TestOverlayAnswers(t *testing.T) {
	m := overlayOpeners()[layerFinder](overlayModel(t))
	m, _ = m.startFind("acc")
	gen := m.finder().gen
	page := finderPage{session: m.session, gen: gen, text: "acc", page: store.FindPage{
		Matches: []store.FoundKey{{Key: codec.Key{codec.String("accounts")}}}}}
	if got := send(m, page); len(got.finder().matches) != 1 {
		t.Fatalf("the page of the scan running was not taken: %d matches", len(got.finder().matches))
	}
	if got := send(send(m, viewtest.Key("esc"), viewtest.Key("esc")), page); got.finder() != nil || len(got.overlays.open) != 0 {
		t.Fatalf("a page after the finder closed opened something: %v", got.overlays.open)
	}
	done := undoDone{session: m.session, gen: m.overlays.newGen(), plan: journal.Plan{Action: journal.Action{ID: "a1"}}}
	if got := send(m, viewtest.Key("esc"), viewtest.Key("esc"), done); !got.flash.on {
		t.Error("an undo's outcome after its list closed was not said")
	}
}
