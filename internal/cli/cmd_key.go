package cli

import (
	"encoding/hex"
	"fmt"
	"strings"

	"kvdeck/codec"
)

// KeyCmd groups the codec commands.
type KeyCmd struct {
	Encode KeyEncodeCmd `cmd:"" help:"Print the encoding of KEY as lowercase hex."`
	Decode KeyDecodeCmd `cmd:"" help:"Print the key text of an encoded key given as hex."`
}

// KeyEncodeCmd encodes a key.
type KeyEncodeCmd struct {
	Key string `arg:"" name:"key" help:"Key text or tagged JSON."`
}

// keyJSON is the result line of key encode and key decode.
type keyJSON struct {
	Key codec.Key `json:"key"`
	Hex string    `json:"hex"`
}

// Run prints the hex encoding (json: the tagged key and the hex).
func (c *KeyEncodeCmd) Run(app *App) error {
	key, err := ParseKey("KEY", c.Key)
	if err != nil {
		return err
	}
	h := hex.EncodeToString(codec.MustEncode(key))
	app.Out.Result(keyJSON{Key: key, Hex: h}, h)
	return nil
}

// KeyDecodeCmd decodes a key.
type KeyDecodeCmd struct {
	Hex string `arg:"" name:"hex" help:"The encoded key as hex (an optional 0x prefix; either case)."`
}

// Run prints the canonical key text (json: the tagged key and the hex).
func (c *KeyDecodeCmd) Run(app *App) error {
	raw, err := ParseHex(c.Hex)
	if err != nil {
		return err
	}
	key, err := codec.Decode(raw)
	if err != nil {
		return fmt.Errorf("HEX: %w", err)
	}
	app.Out.Result(keyJSON{Key: key, Hex: hex.EncodeToString(raw)}, codec.Format(key))
	return nil
}

// ParseHex reads hex typed by a user: an optional 0x prefix, upper or
// lower case, no separators. Errors name the character position.
func ParseHex(s string) ([]byte, error) {
	t := s
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") {
		t = t[2:]
	}
	for i := 0; i < len(t); i++ {
		if !isHexDigit(t[i]) {
			return nil, fmt.Errorf("HEX %s: character %d is not a hex digit", shown(s), len(s)-len(t)+i+1)
		}
	}
	if len(t)%2 != 0 {
		return nil, fmt.Errorf("HEX %s: odd number of hex digits (%d)", shown(s), len(t))
	}
	return hex.DecodeString(t)
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
