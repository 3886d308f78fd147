//go:build !linux

package sqldtest

import "syscall"

// procAttr: only Linux can tie sqld's life to the test process's; elsewhere
// sqld is stopped by the test's cleanup alone.
func procAttr() *syscall.SysProcAttr { return nil }
