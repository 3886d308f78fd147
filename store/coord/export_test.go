package coord

// ReadPulseBounded is ReadPulse counting at most bound rows (tests of the
// bound without 100000 rows).
var ReadPulseSampled = readPulse
