//go:build linux

// Package benchproc starts the `ccski mcp --transport http` server the
// HTTP benchmarks (internal/bench/flood, internal/bench/load) measure,
// stops it, and reads its memory from /proc: one copy of what each of
// them had written out.
package benchproc

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ccski/ccski/internal/fixture"
)

// Options says how to start a server.
type Options struct {
	// Bin is the ccski binary; Tree the fixture it serves (its home and
	// workspace); State the folder of its config and cache folders.
	Bin   string
	Tree  *fixture.Tree
	State string
	// Port is the loopback port to listen on; 0 picks a free one.
	Port int
	// Args are added to `mcp --transport http --port P --no-refresh
	// --user-dir HOME`; Env to the environment of only HOME, PATH, LANG,
	// TZ, TMPDIR, XDG_CONFIG_HOME and XDG_CACHE_HOME.
	Args, Env []string
	// Probe is the path that must answer 200 ("/healthz", "/readyz")
	// within Wait before Start returns.
	Probe string
	Wait  time.Duration
}

// Server is a running `ccski mcp --transport http`.
type Server struct {
	Cmd  *exec.Cmd
	Addr string // host:port on 127.0.0.1
	// Stderr holds the end of what the server wrote to stderr.
	Stderr *Tail
	exited chan struct{}
}

// Start starts the server o describes and waits until o.Probe answers
// 200; it fails if the server exits first or Wait passes.
func Start(ctx context.Context, o Options) (*Server, error) {
	port := o.Port
	if port == 0 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		port = ln.Addr().(*net.TCPAddr).Port
		_ = ln.Close()
	}
	s := &Server{Addr: "127.0.0.1:" + strconv.Itoa(port), Stderr: &Tail{}, exited: make(chan struct{})}
	args := append([]string{"mcp", "--transport", "http", "--port", strconv.Itoa(port), "--no-refresh", "--user-dir", o.Tree.Home}, o.Args...)
	s.Cmd = exec.Command(o.Bin, args...)
	s.Cmd.Dir = o.Tree.Workspace
	s.Cmd.Env = append([]string{"HOME=" + o.Tree.Home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TZ=UTC", "TMPDIR=" + os.TempDir(),
		"XDG_CONFIG_HOME=" + filepath.Join(o.State, "config"), "XDG_CACHE_HOME=" + filepath.Join(o.State, "cache")}, o.Env...)
	s.Cmd.Stderr = s.Stderr
	s.Cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.Cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = s.Cmd.Wait(); close(s.exited) }()
	deadline := time.Now().Add(o.Wait)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("ccski mcp exited: %v\nstderr:\n%s", s.Cmd.ProcessState, s.Stderr)
		default:
		}
		if resp, err := http.Get("http://" + s.Addr + o.Probe); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Stop()
	return nil, fmt.Errorf("ccski mcp did not answer %s within %s\nstderr:\n%s", o.Probe, o.Wait, s.Stderr)
}

// Pid is the server's process id.
func (s *Server) Pid() int { return s.Cmd.Process.Pid }

// Stop ends the server with SIGTERM, or SIGKILL after 10 s.
func (s *Server) Stop() {
	_ = s.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = s.Cmd.Process.Kill()
		<-s.exited
	}
}

// Tail keeps the last 64 KiB written to it.
type Tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - 64<<10; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// StatusKiB is a size field of a running process's /proc/<pid>/status,
// in KiB: VmRSS (its resident set now) or VmHWM (the most it has had);
// NaN when it cannot be read.
func StatusKiB(pid int, field string) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return math.NaN()
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kib, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err == nil {
				return kib
			}
		}
	}
	return math.NaN()
}
