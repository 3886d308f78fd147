package sqldtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// The plainest ways a client reads a whole store from sqld, without
// kvdeck: the baselines its remote scans are measured against (what the
// server spends, how long it takes).

// Pager reads every row of kv (k, v, ver, expires_at, in key order) from
// the server at url in keyset pages of pageRows rows, one /v2/pipeline
// request each, decoding each answer as any JSON client would; it
// returns the rows read.
func Pager(ctx context.Context, url string, pageRows int) (int, error) {
	type cell struct {
		Type   string  `json:"type"`
		Value  any     `json:"value"`
		Base64 *string `json:"base64"`
	}
	var answer struct {
		Results []struct {
			Type     string          `json:"type"`
			Error    json.RawMessage `json:"error"`
			Response struct {
				Result struct {
					Rows [][]cell `json:"rows"`
				} `json:"result"`
			} `json:"response"`
		} `json:"results"`
	}
	n, after := 0, ""
	for {
		stmt := map[string]any{
			"sql":  "SELECT k, v, ver, expires_at FROM kv WHERE k > ? ORDER BY k LIMIT ?",
			"args": []map[string]string{{"type": "blob", "base64": after}, {"type": "integer", "value": strconv.Itoa(pageRows)}},
		}
		body, err := post(ctx, url+"/v2/pipeline", map[string]any{"requests": []any{
			map[string]any{"type": "execute", "stmt": stmt}, map[string]any{"type": "close"},
		}})
		if err != nil {
			return n, err
		}
		answer.Results = nil
		if err := json.Unmarshal(body, &answer); err != nil {
			return n, err
		}
		if len(answer.Results) == 0 || answer.Results[0].Type != "ok" {
			return n, fmt.Errorf("the page after %d rows: %.300s", n, body)
		}
		rows := answer.Results[0].Response.Result.Rows
		n += len(rows)
		if len(rows) < pageRows {
			return n, nil
		}
		last := rows[len(rows)-1][0]
		if last.Base64 == nil {
			return n, fmt.Errorf("row %d: its key is a %s, not a blob", n, last.Type)
		}
		// sqld writes base64 without padding; the request wants it padded.
		raw, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(*last.Base64, "="))
		if err != nil {
			return n, err
		}
		after = base64.StdEncoding.EncodeToString(raw)
	}
}

// Cursor reads every row of kv (k, v, ver, expires_at, in key order)
// from the server at url through Hrana 3's cursor (/v3/cursor), one
// streamed answer of a line per row, read to its end and not decoded
// (the server's side is what it measures), then closes the cursor's
// stream; it returns the rows.
func Cursor(ctx context.Context, url string) (int, error) {
	req, err := request(ctx, url+"/v3/cursor", map[string]any{"baton": nil, "batch": map[string]any{
		"steps": []any{map[string]any{"stmt": map[string]any{"sql": "SELECT k, v, ver, expires_at FROM kv ORDER BY k"}}},
	}})
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return 0, fmt.Errorf("cursor: %s: %s", resp.Status, b)
	}
	r := bufio.NewReaderSize(resp.Body, 1<<20)
	head, err := r.ReadBytes('\n')
	if err != nil {
		return 0, err
	}
	rows := 0
	for {
		line, err := r.ReadSlice('\n')
		if bytes.HasPrefix(line, []byte(`{"type":"row"`)) {
			rows++
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return rows, err
		}
	}
	var h struct {
		Baton *string `json:"baton"`
	}
	if json.Unmarshal(head, &h) == nil && h.Baton != nil {
		_, err = post(ctx, url+"/v2/pipeline", map[string]any{"baton": *h.Baton, "requests": []any{map[string]any{"type": "close"}}})
		if err != nil && strings.Contains(err.Error(), "STREAM_EXPIRED") {
			err = nil // the stream was closed for us: the rows were read
		}
	}
	return rows, err
}

// request is a POST of v as JSON to url.
func request(ctx context.Context, url string, v any) (*http.Request, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

// post sends v as JSON to url and returns the answer's body.
func post(ctx context.Context, url string, v any) ([]byte, error) {
	req, err := request(ctx, url, v)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: %s: %.300s", url, resp.Status, body)
	}
	return body, err
}
