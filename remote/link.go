package remote

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
)

// EnvPersist names the environment variable that sets how long a host's
// link stays up without a connection: a Go duration or seconds; 0 turns
// links off (each call runs its own ssh). Default [DefaultPersist].
const EnvPersist = "PANEFLOW_HOST_PERSIST"

// DefaultPersist is how long an unused link stays up by default.
const DefaultPersist = 10 * time.Minute

// Persist returns the link lifetime e asks for (see [EnvPersist]); 0
// means no link. A value that does not parse gives the default.
func (e Env) Persist() time.Duration {
	if e.Getenv == nil {
		return DefaultPersist
	}
	v := strings.TrimSpace(e.Getenv(EnvPersist))
	if v == "" {
		return DefaultPersist
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
		return time.Duration(n * float64(time.Second))
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return d
	}
	return DefaultPersist
}

// LinkPath returns the socket of h's link: beside Paneflow's own socket in
// this user's runtime directory (PANEFLOW_SOCKET_PATH aside), named by a
// hash of the host and the ssh command, so another config is another
// link.
func LinkPath(h Host, e Env) (string, error) {
	getenv := e.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	sock, err := ipc.ClientSocketPath(func(k string) string {
		if k == ipc.EnvSocketPath {
			return ""
		}
		return getenv(k)
	})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(h.String() + "\x00" + strings.Join(e.sshArgv(), "\x00")))
	return filepath.Join(filepath.Dir(sock), "host-"+hex.EncodeToString(sum[:8])+".sock"), nil
}
