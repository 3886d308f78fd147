// Package widgets holds the pieces the tabs are drawn and driven with: panes
// and layout, styled spans and lines, the word wrapper, time and size text,
// the list cursor and its navigation keys, the read-only refusal, the form,
// the table, the share bar, the time line, the JSON view, the one-line input
// and the confirmation dialog. A widget knows no tab and nothing of the
// coordination records (store/coord); it may send the root the messages of
// package views.
package widgets
