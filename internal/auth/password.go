package auth

import (
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"
)

// Password rules, as typed errors so the UI can say which rule failed in the
// person's language.
var (
	// ErrPasswordTooShort means fewer than MinPasswordLength characters.
	ErrPasswordTooShort = errors.New("auth: password too short")
	// ErrPasswordTooLong means more than bcrypt's 72 bytes.
	ErrPasswordTooLong = errors.New("auth: password too long")
	// ErrPasswordRepeated means one character repeated throughout.
	ErrPasswordRepeated = errors.New("auth: password is one repeated character")
	// ErrPasswordIsUsername means the password equals the username.
	ErrPasswordIsUsername = errors.New("auth: password equals username")
)

// Password length limits: MinPasswordLength in characters; MaxPasswordBytes
// is what bcrypt reads.
const (
	MinPasswordLength = 10
	MaxPasswordBytes  = 72
)

// DefaultBcryptCost is the work factor for new hashes.
const DefaultBcryptCost = 12

var (
	costMu     sync.RWMutex
	bcryptCost = DefaultBcryptCost
	dummyHash  = map[int][]byte{}
)

// SetBcryptCostForTests lowers the work factor so tests run fast; production
// code never calls it.
func SetBcryptCostForTests(cost int) {
	costMu.Lock()
	defer costMu.Unlock()
	bcryptCost = max(cost, bcrypt.MinCost)
}

func currentCost() int {
	costMu.RLock()
	defer costMu.RUnlock()
	return bcryptCost
}

// HashPassword returns the bcrypt hash of pw.
func HashPassword(pw string) (string, error) {
	if len(pw) > MaxPasswordBytes {
		return "", ErrPasswordTooLong
	}
	h, err := bcrypt.GenerateFromPassword([]byte(pw), currentCost())
	if err != nil {
		return "", fmt.Errorf("auth: hash password: %w", err)
	}
	return string(h), nil
}

// CheckPassword reports whether pw matches hash; bcrypt compares in constant time.
func CheckPassword(hash, pw string) bool {
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(pw)) == nil
}

// burnCheck spends about the time of a real CheckPassword, so an unknown
// username answers as slowly as a wrong password.
func burnCheck(pw string) {
	cost := currentCost()
	costMu.RLock()
	h, ok := dummyHash[cost]
	costMu.RUnlock()
	if !ok {
		// Made once per cost, outside the lock: a duplicate on a race is harmless.
		var err error
		if h, err = bcrypt.GenerateFromPassword([]byte("not a real password"), cost); err != nil {
			return
		}
		costMu.Lock()
		dummyHash[cost] = h
		costMu.Unlock()
	}
	_ = bcrypt.CompareHashAndPassword(h, []byte(pw))
}

// ValidatePassword checks the rules that do not depend on the account.
func ValidatePassword(pw string) error {
	if utf8.RuneCountInString(pw) < MinPasswordLength {
		return ErrPasswordTooShort
	}
	if len(pw) > MaxPasswordBytes {
		return ErrPasswordTooLong
	}
	first, _ := utf8.DecodeRuneInString(pw)
	if strings.Trim(pw, string(first)) == "" {
		return ErrPasswordRepeated
	}
	return nil
}

// ValidateNewPassword checks ValidatePassword's rules and that pw is not the username.
func ValidateNewPassword(username, pw string) error {
	if err := ValidatePassword(pw); err != nil {
		return err
	}
	if u := strings.TrimSpace(username); u != "" && strings.EqualFold(strings.TrimSpace(pw), u) {
		return ErrPasswordIsUsername
	}
	return nil
}

// passwordAlphabet leaves out look-alikes (0/O, 1/l/I) so a password read
// aloud or from paper is typed right.
const passwordAlphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// GeneratedPasswordLength is the length of GeneratePassword's result (~93 bits).
const GeneratedPasswordLength = 16

// GeneratePassword returns a random password from an unambiguous alphabet.
func GeneratePassword() string {
	b := make([]byte, GeneratedPasswordLength)
	limit := big.NewInt(int64(len(passwordAlphabet)))
	for i := range b {
		n, err := rand.Int(rand.Reader, limit)
		if err != nil {
			// crypto/rand does not fail on supported platforms.
			panic(fmt.Sprintf("auth: random: %v", err))
		}
		b[i] = passwordAlphabet[n.Int64()]
	}
	return string(b)
}
