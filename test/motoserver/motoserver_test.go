package motoserver

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/glue"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// Each account sees only its own databases, and EnforceIAM ends with its
// test: an unknown key is refused during it and served after it.
func TestAccountsAndEnforcement(t *testing.T) {
	ctx := context.Background()
	srv := Shared(t)
	a, b := srv.NewAccount(t), srv.NewAccount(t)
	a.AddDatabase(t, "sales", Table("orders", "", "", []string{"id bigint"}))
	for _, tc := range []struct {
		acct *Account
		want int
	}{{a, 1}, {b, 0}} {
		out, err := tc.acct.Glue().GetDatabases(ctx, &glue.GetDatabasesInput{})
		if err != nil || len(out.DatabaseList) != tc.want {
			t.Fatalf("account %s: %d databases (want %d), %v", tc.acct.ID, len(out.DatabaseList), tc.want, err)
		}
	}
	stranger := &Account{ID: "none", AccessKeyID: "AKIDSTRANGER", SecretAccessKey: "x", srv: srv}
	t.Run("enforced", func(t *testing.T) {
		srv.EnforceIAM(t)
		if _, err := stranger.Glue().GetDatabases(ctx, &glue.GetDatabasesInput{}); err == nil {
			t.Error("an unknown key was served while IAM is enforced")
		}
		if _, err := a.Glue().GetDatabases(ctx, &glue.GetDatabasesInput{}); err != nil {
			t.Errorf("the account's own key was refused: %v", err)
		}
	})
	if _, err := stranger.Glue().GetDatabases(ctx, &glue.GetDatabasesInput{}); err != nil {
		t.Errorf("after EnforceIAM's test: %v", err)
	}
}

func TestNotInstalled(t *testing.T) {
	t.Setenv(HomeEnv, t.TempDir())
	if _, err := Start(); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("Start without an install: %v", err)
	}
}
