package coord

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// AlarmRecord is the value of both alarm rows: {"epochMs":n,"retryCount":n}.
type AlarmRecord struct {
	// EpochMs is when the alarm is due, in epoch milliseconds.
	EpochMs int64 `json:"epochMs"`
	// RetryCount is 0 for a fresh schedule and counts the retries after a
	// failing handler.
	RetryCount int `json:"retryCount"`
}

// encode writes the record with the reference's key order.
func (r AlarmRecord) encode() []byte {
	return []byte(`{"epochMs":` + strconv.FormatInt(r.EpochMs, 10) + `,"retryCount":` + strconv.Itoa(r.RetryCount) + `}`)
}

// messageRecord is a queue message's value: {"body":any,"attempts":n}.
type messageRecord struct {
	Body     json.RawMessage
	Attempts int
}

func (m messageRecord) encode() []byte {
	var b bytes.Buffer
	b.WriteString(`{"body":`)
	b.Write(m.Body)
	b.WriteString(`,"attempts":`)
	b.WriteString(strconv.Itoa(m.Attempts))
	b.WriteString(`}`)
	return b.Bytes()
}

// holderValue is a lease's or cron tick's value: {"holder":"<uuid>"}.
func holderValue(holder string) []byte {
	q, _ := json.Marshal(holder) // a string always marshals
	return append(append([]byte(`{"holder":`), q...), '}')
}

// checkBody refuses a message body that is not one JSON value, so that it
// cannot change the shape of the record it is embedded in.
func checkBody(body []byte) (json.RawMessage, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || !json.Valid(body) {
		return nil, fmt.Errorf("%w: a message body must be one JSON value, got %q", ErrInvalidArgument, truncate(string(body), 60))
	}
	return json.RawMessage(body), nil
}

// object parses a JSON object into its members.
func object(raw []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%w: value %s is not a JSON object", ErrMalformed, truncate(string(raw), 60))
	}
	return m, nil
}

// intField reads member name of m as a safe, non-negative integer when
// nonNeg, or any safe integer otherwise.
func intField(m map[string]json.RawMessage, name string, nonNeg bool) (int64, error) {
	raw, ok := m[name]
	if !ok {
		return 0, fmt.Errorf("%w: value has no %q", ErrMalformed, name)
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, fmt.Errorf("%w: %q is %s, not a number", ErrMalformed, name, truncate(string(raw), 30))
	}
	n, ok := safeInt(f)
	if !ok || (nonNeg && n < 0) {
		return 0, fmt.Errorf("%w: %q is %s, not a whole number in range", ErrMalformed, name, string(raw))
	}
	return n, nil
}

// stringField reads member name of m as a string.
func stringField(m map[string]json.RawMessage, name string) (string, error) {
	raw, ok := m[name]
	if !ok {
		return "", fmt.Errorf("%w: value has no %q", ErrMalformed, name)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%w: %q is %s, not a string", ErrMalformed, name, truncate(string(raw), 30))
	}
	return s, nil
}

// decodeAlarm parses {"epochMs":n,"retryCount":n}.
func decodeAlarm(raw []byte) (AlarmRecord, error) {
	m, err := object(raw)
	if err != nil {
		return AlarmRecord{}, err
	}
	epoch, err := intField(m, "epochMs", false)
	if err != nil {
		return AlarmRecord{}, err
	}
	retry, err := intField(m, "retryCount", true)
	if err != nil {
		return AlarmRecord{}, err
	}
	return AlarmRecord{EpochMs: epoch, RetryCount: int(retry)}, nil
}

// decodeMessage parses {"body":any,"attempts":n}.
func decodeMessage(raw []byte) (messageRecord, error) {
	m, err := object(raw)
	if err != nil {
		return messageRecord{}, err
	}
	body, ok := m["body"]
	if !ok {
		return messageRecord{}, fmt.Errorf("%w: value has no \"body\"", ErrMalformed)
	}
	attempts, err := intField(m, "attempts", true)
	if err != nil {
		return messageRecord{}, err
	}
	return messageRecord{Body: body, Attempts: int(attempts)}, nil
}

// decodeHolder parses {"holder":"..."}.
func decodeHolder(raw []byte) (string, error) {
	m, err := object(raw)
	if err != nil {
		return "", err
	}
	return stringField(m, "holder")
}

// truncate shortens s for messages.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
