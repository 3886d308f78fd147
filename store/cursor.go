package store

import "encoding/base64"

// CursorAfter is the ListOptions.Cursor that continues a listing right
// after e (in either direction): what a caller that stops inside a page
// (a filter that has found enough) hands back to continue.
func CursorAfter(e Entry) string { return base64.RawURLEncoding.EncodeToString(e.Raw) }
