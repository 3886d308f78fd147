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

// runTokenCommand runs the store's token command through the shell and
// returns its standard output, trimmed. A failure is summarised from its
// standard error (first line, at most 200 bytes, sanitised, and with any
// output it printed redacted), never showing the token.
func runTokenCommand(ctx context.Context, s Store, env map[string]string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, CommandTimeout)
	defer cancel()
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", s.TokenCommand)
	} else {
		cmd = exec.CommandContext(ctx, "/bin/sh", "-c", s.TokenCommand)
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	token := strings.TrimSpace(out.String())
	if err != nil {
		why := err.Error()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			why = fmt.Sprintf("no answer in %s", CommandTimeout)
		}
		if sum := summary(errb.String(), token); sum != "" {
			why += ": " + sum
		}
		return "", fmt.Errorf("%w for store %q: token_command failed (%s)", ErrToken, s.Name, why)
	}
	return nonEmpty(s, token, "token_command")
}

// summary is the first non-empty line of stderr, without the token,
// at most 200 bytes, safe for a terminal.
func summary(stderr, token string) string {
	if token != "" {
		stderr = strings.ReplaceAll(stderr, token, "<redacted>")
	}
	for _, line := range strings.Split(stderr, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 200 {
				line = strings.ToValidUTF8(line[:200], "") + "…"
			}
			return usertext.Sanitize(line)
		}
	}
	return ""
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
