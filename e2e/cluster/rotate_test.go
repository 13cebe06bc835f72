package cluster

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestAccessKeyRotation: "caddy x402 rotate-key --config" with the
// instances' Caddyfile, while three instances run on one PostgreSQL. What
// was signed with the old key before the rotation is still served at every
// instance after it: the access cookie, and a sign-in to each instance's
// challenge sent to another one. Within the poll interval every instance
// signs with the new key, and what each signs is served by the others. The
// old key is forgotten per route once its last signature there can have
// expired: a cookie signed with it (as one who kept the old key could
// make, claiming a later end) is served before that and refused after it
// on the 5 s route, while the 1 h route still honours the old key.
func TestAccessKeyRotation(t *testing.T) {
	c := newCluster(t, options{})
	nodes := c.nodes
	buyer := c.chain.Buyers()[3]
	const long, short = "/access/rot", "/access-short/rot"

	// Before: a paid cookie on each route, three challenges signed.
	paid := nodes[0].pay(c.sign(buyer, c.requirements(nodes[0], long), long), 0)
	oldCookie := accessCookie(t, paid)
	shortPaid := nodes[0].pay(c.sign(buyer, c.requirements(nodes[0], short), short), 0)
	shortCookie := accessCookie(t, shortPaid)
	var signed []string
	for _, in := range nodes {
		signed = append(signed, signChallenge(t, in, long, buyer))
	}

	out := rotateKey(t, c)
	if !strings.HasPrefix(out, "x402: the access server key is now generation 2 in PostgreSQL") ||
		!strings.Contains(out, "the longest access window, 1h0m0s, after its last signature") {
		t.Fatalf("rotate-key said:\n%s", out)
	}
	keys := storedKeys(t, c)
	if len(keys) != 2 {
		t.Fatalf("generations after the rotation: %d", len(keys))
	}
	retired := keys[1].created

	// What the old key signed is served everywhere after the rotation.
	for i, in := range nodes {
		if got := in.get(long, map[string]string{"Cookie": oldCookie}, 0); got.status != http.StatusOK {
			t.Errorf("%s, the cookie made before the rotation: %v", in.name, got)
		}
		next := nodes[(i+1)%len(nodes)]
		if got := next.get(long, map[string]string{x402.HeaderSignInWithX: signed[i]}, 0); got.status != http.StatusOK {
			t.Errorf("%s, a sign-in to %s's challenge made before the rotation: %v", next.name, in.name, got)
		}
	}

	// Within the poll interval each instance signs with the new key: a
	// sign-in there sets a cookie that differs from the old one for the
	// same grant, and the others serve it.
	time.Sleep(time.Until(retired.Add(11 * time.Second)))
	for i, in := range nodes {
		got := in.get(long, map[string]string{x402.HeaderSignInWithX: signChallenge(t, in, long, buyer)}, 0)
		if got.status != http.StatusOK {
			t.Fatalf("%s, a sign-in after the rotation: %v", in.name, got)
		}
		fresh := accessCookie(t, got)
		if fresh == oldCookie {
			t.Errorf("%s still signs with the old key %s after the poll interval", in.name, shortKey(fresh))
		}
		for j, other := range nodes {
			if j == i {
				continue
			}
			if got := other.get(long, map[string]string{"Cookie": fresh}, 0); got.status != http.StatusOK {
				t.Errorf("%s, %s's new-key cookie: %v", other.name, in.name, got)
			}
		}
	}

	// The old key's horizon on the 5 s route: retirement + 20 s (the
	// poll and the clock skew) + 5 s.
	name, value, _ := strings.Cut(shortCookie, "=")
	parts := strings.Split(value, ".")
	payload := strings.Join([]string{"1", parts[1], parts[2], strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)}, ".")
	forged := name + "=" + payload + "." + cookieMAC(keys[0].value, payload)
	if got := nodes[1].get(short, map[string]string{"Cookie": forged}, 0); got.status != http.StatusOK {
		t.Fatalf("B, an old-key cookie before the horizon: %v (the forged cookie is not the server's format?)", got)
	}
	time.Sleep(time.Until(retired.Add(25*time.Second + 2*time.Second)))
	for _, in := range nodes {
		if got := in.get(short, map[string]string{"Cookie": forged}, 0); got.status != http.StatusPaymentRequired {
			t.Errorf("%s, an old-key cookie after the 5 s route's horizon: %v", in.name, got)
		}
		if got := in.get(long, map[string]string{"Cookie": oldCookie}, 0); got.status != http.StatusOK {
			t.Errorf("%s, the 1 h route's old-key cookie within its horizon: %v", in.name, got)
		}
	}
	if runs := c.up.runs(long) + c.up.runs(short); runs != 2+3+3+3+6+1+3 {
		t.Errorf("the upstream ran %d times, want 21 (2 paid, 3 old cookies, 3 old sign-ins, 3 new sign-ins and their 6 cookies, 1 forged cookie before the horizon, 3 old cookies on the long route after it)", runs)
	}
}

// accessCookie is the access cookie an answer sets, as name=value.
func accessCookie(t *testing.T, a answer) string {
	t.Helper()
	if a.status != http.StatusOK {
		t.Fatalf("%v", a)
	}
	for _, sc := range a.header.Values("Set-Cookie") {
		if strings.HasPrefix(sc, "x402_access_") {
			v, _, _ := strings.Cut(sc, ";")
			return v
		}
	}
	t.Fatalf("no access cookie in %v", a.header["Set-Cookie"])
	return ""
}

// signChallenge is a SIGN-IN-WITH-X header for a fresh challenge of the
// instance, signed by buyer.
func signChallenge(t *testing.T, in *instance, path string, buyer devnet.Account) string {
	t.Helper()
	ch := in.get(path, nil, 0)
	var pr struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if err := x402.DecodeBase64JSON(ch.header.Get("Payment-Required"), &pr); err != nil {
		t.Fatalf("%s's 402: %v", in.name, err)
	}
	var decl x402.SIWxDeclaration
	if err := json.Unmarshal(pr.Extensions[x402.ExtSignInWithX], &decl); err != nil {
		t.Fatalf("%s's sign-in-with-x: %v", in.name, err)
	}
	_, header, err := x402.SignSIWx(decl.Info, decl.SupportedChains[0], buyer.Key)
	if err != nil {
		t.Fatal(err)
	}
	return header
}

// rotateKey runs "caddy x402 rotate-key --config" with the instances'
// Caddyfile and environment, and returns what it printed.
func rotateKey(t *testing.T, c *cluster) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(caddyBinary(t), "x402", "rotate-key", "--config", c.config, "--adapter", "caddyfile")
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"NAME=rotate", "PORT=1", "ADMIN_PORT=2",
		"X402_RPC=" + c.chain.RPCURL(),
		"X402_DATABASE_URL=" + c.dsn,
	}
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("caddy x402 rotate-key: %v\n%s%s", err, out, stderr)
	}
	return string(out)
}

// storedKey is a generation of the server key as PostgreSQL holds it.
type storedKey struct {
	value   []byte
	created time.Time
}

// storedKeys reads the server key's generations, oldest first.
func storedKeys(t *testing.T, c *cluster) []storedKey {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT value, created_at FROM x402_secrets WHERE name LIKE 'x402-access-key@%' ORDER BY substr(name, 17)::int`)
	if err != nil {
		t.Fatal(err)
	}
	var out []storedKey
	for rows.Next() {
		var k storedKey
		if err := rows.Scan(&k.value, &k.created); err != nil {
			t.Fatal(err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// cookieMAC signs an access cookie's payload as the paywall does with the
// server key key (caddymodule/access/cookie.go): HMAC-SHA256 under the
// key derived for cookies, Base64 URL without padding.
func cookieMAC(key []byte, payload string) string {
	d := hmac.New(sha256.New, key)
	d.Write([]byte("x402 access cookie"))
	m := hmac.New(sha256.New, d.Sum(nil))
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// shortKey is the end of a cookie, for messages.
func shortKey(cookie string) string {
	if len(cookie) > 12 {
		return "…" + cookie[len(cookie)-12:]
	}
	return cookie
}
