package tui

import "strings"

// keyRow is one action of the key table and, per tab, what does it there:
// the keys in backticks (as the tab's help names them), then words. The
// README shows this table (keyTableMarkdown); a test keeps the README,
// the table and every tab's key map in agreement.
type keyRow struct {
	action string
	cells  [numTabs]string
}

// keyTable has one meaning per key across tabs: enter opens, esc or ←
// backs out, / filters, s searches, r reloads, d deletes (asking first),
// n adds (new), c composes, e edits, v views a value, x stops what runs,
// X resets, o jumps (s, c and n meant something else
// on each tab, and b, f, m, o, r, u, v, x, K and J did too). A key means
// one thing: the row it is in; a key in "the tab's own" row is bound on
// that tab only (TestKeyTableOneMeaningPerKey derives this from the key
// maps). space is kept for marking rows for bulk actions, so
// Browse's open and Race's next step are enter alone.
var keyTable = []keyRow{
	{"move", [numTabs]string{
		tabBrowse: "`↑/k` `↓/j` `pgup` `pgdn` `g/home` `G/end`", tabLeases: "`↑/k` `↓/j` `pgup` `pgdn` `g/home` `G/end`",
		tabAlarms: "`↑/k` `↓/j` `pgup` `pgdn` `g/home` `G/end`", tabQueues: "`↑/k` `↓/j` `pgup` `pgdn` `g/home` `G/end`",
		tabCompose: "`↑/k` `↓/j`", tabRace: "`←/h` `→/l` clients", tabSweep: "`↑/k` `↓/j`",
		tabActivity: "`↑/k` `↓/j` `pgup` `pgdn` `g/home` `G/end`"}},
	{"open, go in", [numTabs]string{
		tabBrowse: "`enter` open/close; `→/l` expand", tabAlarms: "`→/l` the class's alarms",
		tabQueues: "`→/l` messages", tabRace: "`enter` next step",
		tabSweep: "`enter` dry run"}},
	{"back out", [numTabs]string{
		tabBrowse: "`←/h` parent; `esc` clears the filter", tabLeases: "`esc` clears the filter",
		tabAlarms: "`←/h` classes; `esc` clears the filter", tabQueues: "`←/h` queues; `esc` closes the peek, clears the filter",
		tabSweep: "`esc` clears the filter", tabActivity: "`esc` clears the filter, then the since-mark"}},
	{"filter", [numTabs]string{tabBrowse: "`/` level; `s` search values (jq or text)", tabLeases: "`/`", tabAlarms: "`/`", tabQueues: "`/`", tabSweep: "`/`",
		tabActivity: "`/` key prefix"}},
	{"reload", [numTabs]string{
		tabBrowse: "`r`", tabLeases: "`r`", tabAlarms: "`r`", tabQueues: "`r`",
		tabCompose: "`r` refresh stale checks, retry", tabRace: "`r` read the counter", tabSweep: "`r`",
		tabActivity: "`r`"}},
	{"view a value", [numTabs]string{tabBrowse: "`v` read the value, any size (in it: space pages, / n N search, L strings' \\n as lines, T a JSON tree)", tabQueues: "`enter/v` peek the full body"}},
	{"add", [numTabs]string{
		tabBrowse: "`n` key", tabLeases: "`n` acquire", tabAlarms: "`n` set", tabQueues: "`n` send",
		tabCompose: "`n` a set op", tabRace: "`n` client"}},
	{"compose", [numTabs]string{tabBrowse: "`c` from the key", tabCompose: "`c` add a check"}},
	{"edit", [numTabs]string{tabBrowse: "`e` value; `E` in $EDITOR (asks)", tabAlarms: "`e` reschedule",
		tabQueues: "`e` retry later (in a take)", tabCompose: "`enter/e` op"}},
	{"delete", [numTabs]string{
		tabBrowse: "`d`", tabLeases: "`d` release own; `B` break", tabAlarms: "`d`", tabQueues: "`d` purge",
		tabCompose: "`d` add a delete op; `backspace` remove op", tabSweep: "`d` sweep"}},
	{"stop, reset", [numTabs]string{tabCompose: "`X` clear all ops", tabRace: "`x` stop workers; `X` reset", tabSweep: "`x` cancel a sweep"}},
	{"copy", [numTabs]string{tabBrowse: "`y` key; `Y` value"}},
	{"diff", [numTabs]string{tabBrowse: "`=` since you looked; an edit conflict shows theirs → yours", tabActivity: "the detail shows old → new"}},
	{"the past", [numTabs]string{tabBrowse: "`H` the key's history; at a point (after :at TIME) `P` put back as then (asks)"}},
	{"mark rows, act on many", [numTabs]string{
		tabBrowse: "`space` mark row; `ctrl+a` all shown / clear; `;` bulk: delete, copy keys, export", tabAlarms: "`space` mark row; `ctrl+a` all shown / clear; `;` bulk: delete, fire now, copy keys, export",
		tabQueues:   "`space` mark row; `ctrl+a` all shown, again all in the queue / clear; `;` bulk: retry now, dead-letter, delete, copy keys, export",
		tabActivity: "`space` mark row; `ctrl+a` all shown / clear; `;` bulk: copy keys, delete as written, export"}},
	{"undo", [numTabs]string{
		tabBrowse: "`z` journal", tabLeases: "`z` journal", tabAlarms: "`z` journal", tabQueues: "`z` journal",
		tabCompose: "`z` journal", tabRace: "`z` journal", tabSweep: "`z` journal", tabActivity: "`z` journal"}},
	{"switch store, fleet", [numTabs]string{
		tabBrowse: "`O` saved stores; `F` fleet", tabLeases: "`O` saved stores; `F` fleet; `W` the group's rows", tabAlarms: "`O` saved stores; `F` fleet; `W` the group's rows",
		tabQueues:  "`O` saved stores; `F` fleet; `W` the group's rows",
		tabCompose: "`O` saved stores; `F` fleet", tabRace: "`O` saved stores; `F` fleet", tabSweep: "`O` saved stores; `F` fleet", tabActivity: "`O` saved stores; `F` fleet"}},
	{"find keys", [numTabs]string{
		tabBrowse: "`ctrl+p` the store", tabLeases: "`ctrl+p` the store", tabAlarms: "`ctrl+p` the store", tabQueues: "`ctrl+p` the store",
		tabCompose: "`ctrl+p` the store", tabRace: "`ctrl+p` the store", tabSweep: "`ctrl+p` the store", tabActivity: "`ctrl+p` the store"}},
	{"back, forward", [numTabs]string{
		tabBrowse: "`[/ctrl+o` `]`", tabLeases: "`[/ctrl+o` `]`", tabAlarms: "`[/ctrl+o` `]`", tabQueues: "`[/ctrl+o` `]`",
		tabCompose: "`[/ctrl+o` `]`", tabRace: "`[/ctrl+o` `]`", tabSweep: "`[/ctrl+o` `]`", tabActivity: "`[/ctrl+o` `]`"}},
	{"jump", [numTabs]string{
		tabBrowse: "`o` a dwk_* key's tab", tabLeases: "`o` raw key in Browse", tabAlarms: "`o` raw key in Browse",
		tabQueues: "`o` raw key in Browse", tabActivity: "`enter` the key in Browse"}},
	{"the tab's own", [numTabs]string{
		tabBrowse: "`K` `J` scroll value; `\\|` pipe value ($PAGER or a command)", tabLeases: "`S` sort", tabAlarms: "`f` fire due (asks)",
		tabQueues:  "`t` take a batch as a consumer (asks), then `a` ack, `b` back off (nack), `u` give all back",
		tabCompose: "`ctrl+s` commit (asks); `V` fill stamp (version); `alt+↑` `alt+↓` move op; `w` `I` save / import",
		tabRace: "`m` mode; `U` naive; `i` stage; `ctrl+s` commit (asks); `A` again: recover; `R` replay (asks); " +
			"`enter` start workers (asks); `+` `-` workers; `L` lockstep",
		tabActivity: "`M` since-mark (again clears)"}},
}

// keyTableMarkdown renders the table as the README shows it.
func keyTableMarkdown() string {
	var b strings.Builder
	b.WriteString("| action |")
	for t := range numTabs {
		b.WriteString(" " + t.String() + " |")
	}
	b.WriteString("\n|---|")
	for range numTabs {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range keyTable {
		b.WriteString("| " + r.action + " |")
		for _, c := range r.cells {
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// tableKeys are the keys (in backticks) of tab t's column.
func tableKeys(t tab) []string {
	var out []string
	for _, r := range keyTable {
		parts := strings.Split(r.cells[t], "`")
		for i := 1; i < len(parts); i += 2 {
			out = append(out, strings.ReplaceAll(parts[i], `\|`, "|")) // a Markdown cell writes | as \|
		}
	}
	return out
}
