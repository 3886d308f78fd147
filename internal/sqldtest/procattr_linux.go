package sqldtest

import "syscall"

// procAttr makes the kernel kill sqld when the test process dies, so a
// crashed or killed test run leaves no server behind.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
