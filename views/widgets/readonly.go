package widgets

// ReadOnlyNote is the line a coordination view shows instead of its
// action hints in read-only mode.
const ReadOnlyNote = "read-only: the store was opened read-only, so actions are disabled."
