package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// schoolRow is the id of the one row of school_profile and school_logo.
const schoolRow = "school"

// SchoolProfile is what receipts and bill letters print about the school.
type SchoolProfile struct {
	Name, Address, NPSN, Phone string
	// ReceiptFooter is printed under every receipt.
	ReceiptFooter string
	// ReceiptPattern numbers receipts, e.g. "KW/{YYYY}/{MM}/{seq}"; empty: no suggestion.
	ReceiptPattern string
	// LetterNote says on bill letters how to pay; empty: the portal's standard words.
	LetterNote string
	// City is the place letters are written in ("Bandung, 28 November 2026").
	City string
	// BursarName and BursarNIP sign letters (the school's treasurer, "Bendahara").
	BursarName, BursarNIP string
	// PrincipalName and PrincipalNIP countersign them under "Mengetahui".
	PrincipalName, PrincipalNIP string
	// LetterPattern numbers letters, e.g. "{seq}/KEU/{MMR}/{YYYY}"; empty: the portal's.
	LetterPattern string
	UpdatedAt     time.Time
}

// SchoolProfile reads the profile; a school that never saved one gets the zero profile.
func (db *DB) SchoolProfile(ctx context.Context) (SchoolProfile, error) {
	var p SchoolProfile
	err := db.sql.QueryRowContext(ctx, `SELECT name, address, npsn, phone, receipt_footer, receipt_pattern,
		letter_note, city, bursar_name, bursar_nip, principal_name, principal_nip, letter_pattern, updated_at
		FROM school_profile WHERE id = $1`, schoolRow).Scan(
		&p.Name, &p.Address, &p.NPSN, &p.Phone, &p.ReceiptFooter, &p.ReceiptPattern, &p.LetterNote,
		&p.City, &p.BursarName, &p.BursarNIP, &p.PrincipalName, &p.PrincipalNIP, &p.LetterPattern, &p.UpdatedAt)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return SchoolProfile{}, nil
	case err != nil:
		return SchoolProfile{}, fmt.Errorf("store: school profile: %w", err)
	}
	p.UpdatedAt = p.UpdatedAt.UTC()
	return p, nil
}

// SaveSchoolProfile stores p (the logo is kept apart: SetSchoolLogo).
func (db *DB) SaveSchoolProfile(ctx context.Context, p SchoolProfile) error {
	_, err := db.sql.ExecContext(ctx, `INSERT INTO school_profile (id, name, address, npsn, phone,
		receipt_footer, receipt_pattern, letter_note, city, bursar_name, bursar_nip, principal_name, principal_nip,
		letter_pattern, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, address = excluded.address, npsn = excluded.npsn,
			phone = excluded.phone, receipt_footer = excluded.receipt_footer,
			receipt_pattern = excluded.receipt_pattern, letter_note = excluded.letter_note,
			city = excluded.city, bursar_name = excluded.bursar_name, bursar_nip = excluded.bursar_nip,
			principal_name = excluded.principal_name, principal_nip = excluded.principal_nip,
			letter_pattern = excluded.letter_pattern, updated_at = excluded.updated_at`,
		schoolRow, p.Name, p.Address, p.NPSN, p.Phone, p.ReceiptFooter, p.ReceiptPattern, p.LetterNote,
		p.City, p.BursarName, p.BursarNIP, p.PrincipalName, p.PrincipalNIP, p.LetterPattern, db.Now())
	if err != nil {
		return fmt.Errorf("store: save school profile: %w", err)
	}
	return nil
}

// SchoolLogo is the school's logo image.
type SchoolLogo struct {
	ContentType string
	Data        []byte
	// SHA256 names this version of the image (hex), for caching.
	SHA256    string
	UpdatedAt time.Time
}

// SchoolLogo reads the logo; ErrNotFound when there is none.
func (db *DB) SchoolLogo(ctx context.Context) (SchoolLogo, error) {
	var l SchoolLogo
	var data string
	err := db.sql.QueryRowContext(ctx, `SELECT content_type, data_base64, sha256, updated_at FROM school_logo WHERE id = $1`,
		schoolRow).Scan(&l.ContentType, &data, &l.SHA256, &l.UpdatedAt)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return SchoolLogo{}, ErrNotFound
	case err != nil:
		return SchoolLogo{}, fmt.Errorf("store: school logo: %w", err)
	}
	if l.Data, err = base64.StdEncoding.DecodeString(data); err != nil {
		return SchoolLogo{}, fmt.Errorf("store: school logo: %w", err)
	}
	l.UpdatedAt = l.UpdatedAt.UTC()
	return l, nil
}

// SchoolLogoVersion is the SHA-256 of the logo, or "" when there is none: enough to
// address the image without reading it.
func (db *DB) SchoolLogoVersion(ctx context.Context) (string, error) {
	var sum string
	err := db.sql.QueryRowContext(ctx, `SELECT sha256 FROM school_logo WHERE id = $1`, schoolRow).Scan(&sum)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("store: school logo: %w", err)
	}
	return sum, nil
}

// SetSchoolLogo replaces the logo. The caller has checked the type and the size.
func (db *DB) SetSchoolLogo(ctx context.Context, contentType string, data []byte) (SchoolLogo, error) {
	sum := sha256.Sum256(data)
	l := SchoolLogo{ContentType: contentType, Data: data, SHA256: hex.EncodeToString(sum[:]), UpdatedAt: db.Now()}
	_, err := db.sql.ExecContext(ctx, `INSERT INTO school_logo (id, content_type, data_base64, sha256, updated_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO UPDATE SET content_type = excluded.content_type,
			data_base64 = excluded.data_base64, sha256 = excluded.sha256, updated_at = excluded.updated_at`,
		schoolRow, contentType, base64.StdEncoding.EncodeToString(data), l.SHA256, l.UpdatedAt)
	if err != nil {
		return SchoolLogo{}, fmt.Errorf("store: set school logo: %w", err)
	}
	return l, nil
}

// RemoveSchoolLogo deletes the logo (receipts go back to the portal's own).
func (db *DB) RemoveSchoolLogo(ctx context.Context) error {
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM school_logo WHERE id = $1`, schoolRow); err != nil {
		return fmt.Errorf("store: remove school logo: %w", err)
	}
	return nil
}

// NextReceiptNumber is the number after the last one used in scope (1 for a new scope).
// It only reads: two people looking at once see the same number, and the one who pays
// second is warned that it was used meanwhile.
func (db *DB) NextReceiptNumber(ctx context.Context, scope string) (int64, error) {
	var last int64
	err := db.sql.QueryRowContext(ctx, `SELECT last FROM receipt_sequences WHERE scope = $1`, scope).Scan(&last)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 1, nil
	case err != nil:
		return 0, fmt.Errorf("store: receipt sequence %q: %w", scope, err)
	}
	return last + 1, nil
}

// UseReceiptNumber records that number n of scope was used: the sequence moves past it
// and never back, whatever order instances record their numbers in (one atomic upsert).
func (db *DB) UseReceiptNumber(ctx context.Context, scope string, n int64) error {
	_, err := db.sql.ExecContext(ctx, `INSERT INTO receipt_sequences (scope, last, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (scope) DO UPDATE SET
			last = CASE WHEN excluded.last > receipt_sequences.last THEN excluded.last ELSE receipt_sequences.last END,
			updated_at = excluded.updated_at`, scope, n, db.Now())
	if err != nil {
		return fmt.Errorf("store: use receipt number %q %d: %w", scope, n, err)
	}
	return nil
}
