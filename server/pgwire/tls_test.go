package pgwire

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// selfSigned is a certificate for 127.0.0.1. It names a subject, hence
// an issuer: Java's X.509 parser refuses an empty issuer name.
func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ossie-test"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// With a certificate the SSLRequest is answered with TLS; without one it
// is refused: sslmode=require fails, sslmode=prefer goes on in clear.
func TestTLS(t *testing.T) {
	f := newFixture(t, true, Options{TLS: &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}}})
	url := strings.Replace(f.url(tokenState), "sslmode=disable", "sslmode=require", 1)
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, ok := c.PgConn().Conn().(*tls.Conn); !ok {
		t.Errorf("connection is %T, not TLS", c.PgConn().Conn())
	}
	if _, rows := sqlRows(t, c, `SELECT order_count FROM shop.shop`); len(rows) != 1 {
		t.Errorf("over TLS: %v", rows)
	}

	plain := newFixture(t, false, Options{})
	if _, err := pgx.Connect(context.Background(), strings.Replace(plain.url(""), "sslmode=disable", "sslmode=require", 1)); err == nil {
		t.Error("sslmode=require connected to an endpoint without a certificate")
	}
	p, err := pgx.Connect(context.Background(), strings.Replace(plain.url(""), "sslmode=disable", "sslmode=prefer", 1))
	if err != nil {
		t.Fatalf("sslmode=prefer: %v", err)
	}
	p.Close(context.Background())
}
