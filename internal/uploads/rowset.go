package uploads

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// RowSet is a set of sheet rows, one bit each: the rows an analysis found wrong, kept
// whole (at most 128 KB for Excel's 1,048,576 rows) however few of their problems are.
type RowSet struct{ words []uint64 }

// Add puts row in the set.
func (s *RowSet) Add(row int) {
	if row < 0 {
		return
	}
	w := row / 64
	for len(s.words) <= w {
		s.words = append(s.words, 0)
	}
	s.words[w] |= 1 << (row % 64)
}

// Has reports whether row is in the set.
func (s RowSet) Has(row int) bool {
	w := row / 64
	return row >= 0 && w < len(s.words) && s.words[w]&(1<<(row%64)) != 0
}

// Len counts the rows in the set.
func (s RowSet) Len() int {
	n := 0
	for _, w := range s.words {
		n += bits.OnesCount64(w)
	}
	return n
}

// MarshalBinary encodes the set (little-endian words).
func (s RowSet) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, 8*len(s.words))
	for _, w := range s.words {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b, nil
}

// UnmarshalBinary reads what MarshalBinary wrote.
func (s *RowSet) UnmarshalBinary(b []byte) error {
	if len(b)%8 != 0 {
		return errors.New("uploads: row set: truncated")
	}
	s.words = make([]uint64, len(b)/8)
	for i := range s.words {
		s.words[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return nil
}
