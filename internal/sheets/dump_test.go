package sheets

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func dump(path string) string {
	var b strings.Builder
	bk, err := OpenFile(path, Limits{})
	if err != nil {
		return "open: " + err.Error()
	}
	defer bk.Close()
	fmt.Fprintf(&b, "%s %v 1904=%v enc=%q delim=%q preferred=%d\n", path, bk.Format, bk.Date1904, bk.Encoding, bk.Delimiter, bk.Preferred())
	for _, s := range bk.Sheets {
		fmt.Fprintf(&b, " sheet %d %q %v active=%v\n", s.Index, s.Name, s.Visibility, s.Active)
		rows, err := bk.Rows(s.Index)
		if err != nil {
			fmt.Fprintf(&b, "  rows: %v\n", err)
			continue
		}
		for rows.Next() {
			r := rows.Row()
			fmt.Fprintf(&b, "  row %d hidden=%v:", r.Number, r.Hidden)
			for _, c := range r.Cells {
				fmt.Fprintf(&b, " %s=%v{%q raw=%q fmt=%q f=%v}", c.Ref(), c.Kind, c.Text, c.Raw, c.Format, c.Formula)
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "  err=%v merged=%v hiddenC=%v\n", rows.Err(), rows.Merged(), rows.ColHidden(2))
		rows.Close()
	}
	return b.String()
}

func TestDump(t *testing.T) {
	for _, p := range strings.Split(os.Getenv("DUMP"), ",") {
		if p != "" {
			t.Log("\n" + dump(p))
		}
	}
}
