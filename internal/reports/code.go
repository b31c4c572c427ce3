package reports

import "strings"

// Code is a text cell made of digits that must stay text, such as a NIS: "007123" is not
// the number 7123. An .xlsx writes it as a text cell; a CSV as ="007123", the one spelling
// Excel (and LibreOffice) opens as the text it is, leading zeros and all, instead of a
// number. A code with anything but digits is written as any other text.
type Code string

// csv is the code as a CSV cell.
func (c Code) csv() string {
	s := string(c)
	if s != "" && strings.Trim(s, "0123456789") == "" {
		return `="` + s + `"`
	}
	return Neutralise(s)
}
