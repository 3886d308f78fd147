// Package usertext is the one home of the text users type and read, shared
// by the CLI, the TUI's command line and its forms:
//
//   - times (ParseTime, ParseTimeSpec): now, a signed Go duration from
//     now, epoch milliseconds or RFC 3339, within years 0001 to 9999; and
//     FormatTime, the one way an instant is written (FormatTimeFixed, its
//     fixed-width form, for columns of times);
//   - durations (ParseDuration, ParseDurationAtLeast): Go durations of
//     whole milliseconds, the store's resolution;
//   - versionstamps (ParseStamp, StampText);
//   - byte counts (BytesText: 812 B, 4.2 KiB) and counts (Count: 3,412;
//     CountShort: 3.4k);
//   - the one rule that makes text from a database (or any other untrusted
//     source) safe to show on a terminal (Sanitize, Unsafe, EscapeJSON).
//
// Errors never repeat the input unless said: the caller names what was
// typed, in its own words.
package usertext
