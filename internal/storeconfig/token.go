package storeconfig

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"kvdeck/internal/editsession"
	"kvdeck/internal/usertext"
)

// CommandTimeout bounds a token command (a password manager may ask for
// a passphrase through its own agent).
const CommandTimeout = time.Minute

// Token gets s's auth token from its source; "" when it has none. env is
// the environment the token variable is read from and the command runs
// in. An error never contains the token.
func (c *Config) Token(ctx context.Context, s Store, env map[string]string) (string, error) {
	switch {
	case s.Minted():
		return c.TokenFor(ctx, s, env, false)
	case s.TokenEnv != "":
		v := env[s.TokenEnv]
		if v == "" {
			return "", fmt.Errorf("%w for store %q: $%s is not set", ErrToken, s.Name, s.TokenEnv)
		}
		return v, nil
	case s.TokenCommand != "":
		return runTokenCommand(ctx, s, env)
	case s.TokenFile != "":
		path := expandHome(s.TokenFile, env)
		if err := private(path); err != nil {
			return "", fmt.Errorf("%w for store %q: token_file %w", ErrToken, s.Name, err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("%w for store %q: %w", ErrToken, s.Name, err)
		}
		return nonEmpty(s, strings.TrimSpace(string(b)), "token_file "+path)
	case s.Token != "":
		if err := private(c.Path); err != nil {
			return "", fmt.Errorf("%w for store %q: it is written in %s, and a literal token is used only from a file its owner alone can read: %w; use token_env or token_command instead", ErrToken, s.Name, c.Path, err)
		}
		return s.Token, nil
	}
	return "", nil
}

// private refuses a file that group or others may read or write.
func private(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if runtime.GOOS == "windows" {
		return nil // no mode bits to check; its ACLs are the user's
	}
	if m := info.Mode().Perm(); m&0o077 != 0 {
		return fmt.Errorf("%s is mode %04o, readable beyond its owner (chmod 600 %s)", filepath.Base(path), m, path)
	}
	return nil
}

// outputGrace is how long a token command's output may stay open after
// its shell exited: a child it left in the background holds the pipe,
// and what the shell printed by its exit is the token.
const outputGrace = 200 * time.Millisecond

// runTokenCommand runs the store's token command through the shell, in a
// process group of its own, and returns its standard output, trimmed: what
// it printed by the time the shell exited (a child left in the background
// does not hold the answer up). At the bound (ctx's deadline, at most
// CommandTimeout) the whole group is killed and the command fails. A
// failure is summarised from its standard error (summary), never showing
// the token.
func runTokenCommand(ctx context.Context, s Store, env map[string]string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, CommandTimeout)
	defer cancel()
	bound := CommandTimeout
	if d, ok := ctx.Deadline(); ok {
		bound = time.Until(d).Round(100 * time.Millisecond)
	}
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", s.TokenCommand)
	} else {
		cmd = exec.CommandContext(ctx, "/bin/sh", "-c", s.TokenCommand)
	}
	editsession.OwnGroup(cmd)
	cmd.WaitDelay = outputGrace
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	errb := &capped{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = &out, errb
	err := cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) || ctx.Err() != nil {
		// Something the command started still held its output: it goes
		// with the group.
		_ = editsession.KillGroup(cmd)
	}
	if errors.Is(err, exec.ErrWaitDelay) && ctx.Err() == nil {
		err = nil // the shell succeeded; a child it left kept the pipe
	}
	token := strings.TrimSpace(out.String())
	if err != nil {
		why := err.Error()
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			why = fmt.Sprintf("no answer within %s", bound)
		case ctx.Err() != nil:
			why = "interrupted"
		}
		if sum := summary(errb.String(), out.String()); sum != "" {
			why += ": " + sum
		}
		return "", fmt.Errorf("%w for store %q: token_command failed (%s)", ErrToken, s.Name, why)
	}
	return nonEmpty(s, token, "token_command")
}

// capped keeps the first max bytes written to it and drops the rest.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }

// summary is the first non-empty line of stderr with every word that
// may be (part of) a token cut out (redact), at most 200 bytes, safe for
// a terminal. stdout is what the command printed, perhaps the token.
func summary(stderr, stdout string) string {
	for _, line := range strings.Split(stderr, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			line = redact(line[:min(len(line), 4096)], stdout[:min(len(stdout), 4096)])
			if len(line) > 200 {
				line = strings.ToValidUTF8(line[:200], "") + "…"
			}
			return usertext.Sanitize(line)
		}
	}
	return ""
}

// tokenChar reports whether r may be part of a token: base64 (standard
// and URL-safe), a JWT's dots, the dashes and underscores of API keys.
func tokenChar(r rune) bool {
	return r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("+/=_.-", r))
}

// redact replaces with <redacted> every word of line (a run of token
// characters) that shares a run of several characters with a word of
// stdout (a token, or the part of one a failing command printed before
// the whole), or that looks like a token itself (tokenLike) though
// stdout had none.
func redact(line, stdout string) string {
	printed := strings.FieldsFunc(stdout, func(r rune) bool { return !tokenChar(r) })
	var b strings.Builder
	for len(line) > 0 {
		i := strings.IndexFunc(line, tokenChar)
		if i < 0 {
			b.WriteString(line)
			break
		}
		b.WriteString(line[:i])
		line = line[i:]
		j := strings.IndexFunc(line, func(r rune) bool { return !tokenChar(r) })
		if j < 0 {
			j = len(line)
		}
		word := line[:j]
		line = line[j:]
		if tokenLike(word) || sharesRun(word, printed) {
			b.WriteString("<redacted>")
		} else {
			b.WriteString(word)
		}
	}
	return b.String()
}

// sharesRun reports whether word holds a run of a printed word's
// characters long enough to be a piece of it: half of it, between 4 and 8
// characters (a word printed shorter than 4 is too short to be a secret
// worth a lost error message).
func sharesRun(word string, printed []string) bool {
	for _, p := range printed {
		if len(p) < 4 {
			continue
		}
		n := min(8, max(4, len(p)/2))
		for i := 0; i+n <= len(word); i++ {
			if strings.Contains(p, word[i:i+n]) {
				return true
			}
		}
	}
	return false
}

// tokenLike reports whether word looks like a token: 20 characters or
// more, letters and digits mixed, and not a path (no leading / . or ~).
func tokenLike(word string) bool {
	if len(word) < 20 || strings.ContainsAny(word[:1], "/.~") {
		return false
	}
	return strings.ContainsAny(word, "0123456789") && strings.IndexFunc(word, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) >= 0
}

func nonEmpty(s Store, token, from string) (string, error) {
	if token == "" {
		return "", fmt.Errorf("%w for store %q: %s gave an empty token", ErrToken, s.Name, from)
	}
	return token, nil
}

// expandHome expands a leading ~/ with env's HOME.
func expandHome(path string, env map[string]string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok && env["HOME"] != "" {
		return filepath.Join(env["HOME"], rest)
	}
	return path
}
