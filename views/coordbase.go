package views

import (
	"kvdeck/store"
	"kvdeck/themes"
)

// coordBase is the state the coordination views (Leases, Alarms, Queues)
// share: the engine, the generation of the newest load, focus, size, the
// form and an action in flight. Each view embeds it.
type coordBase struct {
	deps     Deps
	store    *store.Store // nil when Deps.Store is not one (err says so)
	styles   themes.Styles
	readOnly bool
	focused  bool

	tags    int  // source of generation tags
	gen     int  // tag of the newest load; older answers are dropped
	loading bool // a load is in flight
	loaded  bool
	err     error // the last load failed (shown inline)

	form   *miniForm // the view's form, when open
	acting bool      // an action is in flight

	width, height int
}

// newCoordBase resolves the engine behind deps (coordStore) and tags the
// first load here, not in Init (Init's receiver is a copy).
func newCoordBase(deps Deps, styles themes.Styles) coordBase {
	b := coordBase{deps: deps, styles: styles, readOnly: deps.Store.ReadOnly()}
	b.store, b.err = coordStore(deps)
	b.gen, b.loading = b.nextTag(), b.store != nil
	return b
}

// Focus gives the view the keys.
func (b *coordBase) Focus() { b.focused = true }

// Blur takes the keys away; a blurred view ignores keys.
func (b *coordBase) Blur() { b.focused = false }

// nextTag returns a fresh generation tag.
func (b *coordBase) nextTag() int {
	b.tags++
	return b.tags
}

// startLoad tags a new load; false when there is no store to load from.
func (b *coordBase) startLoad() bool {
	if b.store == nil {
		return false
	}
	b.gen, b.loading = b.nextTag(), true
	return true
}

// loadAnswered takes a load's answer of session and gen: false when it is
// stale (another session, or superseded by a newer load) or failed, so
// its rows must not be used.
func (b *coordBase) loadAnswered(session, gen int, err error) bool {
	if session != b.deps.Session || gen != b.gen {
		return false
	}
	b.loading, b.loaded, b.err = false, true, err
	return err == nil
}

// actionAnswered ends an action of session: false when the answer belongs
// to an older session.
func (b *coordBase) actionAnswered(session int) bool {
	if session != b.deps.Session {
		return false
	}
	b.acting = false
	if b.form != nil {
		b.form.busy = false
	}
	return true
}
