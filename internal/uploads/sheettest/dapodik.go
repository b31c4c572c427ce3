package sheettest

import (
	"fmt"
	"strconv"

	"github.com/xuri/excelize/v2"
)

// Dapodik's students export ("Daftar PD": Peserta Didik → Unduh → Daftar PD in the
// Dapodik application), as its public descriptions give it: four title rows, then two
// heading rows (each column's heading merged over both, but the parents' and guardian's,
// grouped under "Data Ayah", "Data Ibu" and "Data Wali" with their own headings below),
// then a row per student; 66 columns. The school's student number is NIPD (NISN is the
// national one), the class "Rombel Saat Ini", the mobile "HP" beside a landline
// "Telepon", and the government-aid flags "Penerima KPS", "Penerima KIP" and "Layak PIP
// (usulan dari sekolah)" are "Ya" or "Tidak". internal/uploads/testdata/README.md says
// where the column list comes from.

// DapodikParent are the headings under each of "Data Ayah", "Data Ibu", "Data Wali".
var DapodikParent = []string{"Nama", "Tahun Lahir", "Jenjang Pendidikan", "Pekerjaan", "Penghasilan", "NIK"}

// DapodikColumns are the export's headings in order; a group's sub-headings follow it
// (a heading "Data Ayah" stands for its six columns).
var DapodikColumns = []string{"No", "Nama", "NIPD", "JK", "NISN", "Tempat Lahir", "Tanggal Lahir", "NIK", "Agama",
	"Alamat", "RT", "RW", "Dusun", "Kelurahan", "Kecamatan", "Kode Pos", "Jenis Tinggal", "Alat Transportasi", "Telepon",
	"HP", "E-Mail", "SKHUN", "Penerima KPS", "No. KPS", "Data Ayah", "Data Ibu", "Data Wali", "Rombel Saat Ini",
	"No Peserta Ujian Nasional", "No Seri Ijazah", "Penerima KIP", "Nomor KIP", "Nama di KIP", "Nomor KKS",
	"No Registrasi Akta Lahir", "Bank", "Nomor Rekening Bank", "Rekening Atas Nama", "Layak PIP (usulan dari sekolah)",
	"Alasan Layak PIP", "Kebutuhan Khusus", "Sekolah Asal", "Anak ke-berapa", "Lintang", "Bujur", "No KK",
	"Berat Badan", "Tinggi Badan", "Lingkar Kepala", "Jml. Saudara Kandung", "Jarak Rumah ke Sekolah (KM)"}

// DapodikStudent is one student of the export.
type DapodikStudent struct {
	Name, NIPD, NISN, Class string
	// HP is the mobile, Telepon the landline (either may be empty).
	HP, Telepon, Email string
	KIP, KPS, PIP      bool
}

// DapodikStudents are five students of a junior high school: the first a KIP holder
// proposed for PIP, the second a KPS holder with only a landline, the third with a mobile
// and a landline.
var DapodikStudents = []DapodikStudent{
	{Name: "Ahmad Fauzi", NIPD: "23240701", NISN: "0112345601", Class: "Kelas 7A", HP: "081234560001", KIP: true, PIP: true},
	{Name: "Bella Safitri", NIPD: "23240702", NISN: "0112345602", Class: "Kelas 7A", Telepon: "(024) 7601234", KPS: true},
	{Name: "Candra Wijaya", NIPD: "23240703", NISN: "0112345603", Class: "Kelas 7B", HP: "081234560003", Telepon: "(024) 7605555", Email: "candra.ortu@example.com"},
	{Name: "Dina Maharani", NIPD: "23240704", NISN: "0112345604", Class: "Kelas 7B", HP: "+62 812 3456 0004", KIP: true, KPS: true, PIP: true},
	{Name: "Eko Prasetyo", NIPD: "23240705", NISN: "0112345605", Class: "Kelas 8A", HP: "081234560005"},
}

// DapodikHeadings are the export's column headings as the portal names them (a group's
// columns as "Data Ayah: Nama"), in order: 66 of them.
func DapodikHeadings() []string {
	var out []string
	for _, c := range DapodikColumns {
		switch c {
		case "Data Ayah", "Data Ibu", "Data Wali":
			for _, p := range DapodikParent {
				out = append(out, c+": "+p)
			}
		default:
			out = append(out, c)
		}
	}
	return out
}

func yaTidak(b bool) string {
	if b {
		return "Ya"
	}
	return "Tidak"
}

// Dapodik writes the export of students as Dapodik downloads it (an .xlsx; the .xls and
// .ods LibreOffice makes of the same are in internal/uploads/testdata).
func Dapodik(path string, students []DapodikStudent) error {
	f := excelize.NewFile()
	defer f.Close()
	const sheet = "Sheet1"
	set := func(col, row int, v any) error {
		cell, err := excelize.CoordinatesToCellName(col, row)
		if err != nil {
			return err
		}
		return f.SetCellValue(sheet, cell, v)
	}
	merge := func(c1, r1, c2, r2 int) error {
		a, _ := excelize.CoordinatesToCellName(c1, r1)
		b, _ := excelize.CoordinatesToCellName(c2, r2)
		return f.MergeCell(sheet, a, b)
	}
	text, err := f.NewStyle(&excelize.Style{NumFmt: 49})
	if err != nil {
		return err
	}
	for i, title := range []string{"Daftar Peserta Didik", "SMP NEGERI 1 CONTOH", "Kecamatan Tembalang, Kota Semarang, Prov. Jawa Tengah",
		"Tanggal Unduh: 2027-07-15 09:12:44    Pengunduh: operator@smpn1contoh.sch.id (Operator Sekolah)"} {
		if err := set(1, i+1, title); err != nil {
			return err
		}
	}
	// The two heading rows.
	col := 1
	for _, c := range DapodikColumns {
		if err := set(col, 5, c); err != nil {
			return err
		}
		switch c {
		case "Data Ayah", "Data Ibu", "Data Wali":
			for i, p := range DapodikParent {
				if err := set(col+i, 6, p); err != nil {
					return err
				}
			}
			if err := merge(col, 5, col+len(DapodikParent)-1, 5); err != nil {
				return err
			}
			col += len(DapodikParent)
		default:
			if err := merge(col, 5, col, 6); err != nil {
				return err
			}
			col++
		}
	}
	for i, s := range students {
		row := 7 + i
		values := map[string]any{
			"No": i + 1, "Nama": s.Name, "NIPD": s.NIPD, "JK": []string{"L", "P"}[i%2], "NISN": s.NISN,
			"Tempat Lahir": "Semarang", "Tanggal Lahir": fmt.Sprintf("2014-0%d-1%d", 1+i%9, i%10), "NIK": "33740" + strconv.Itoa(1000000000+i),
			"Agama": "Islam", "Alamat": "Jl. Melati No. " + strconv.Itoa(i+1), "RT": "2", "RW": "5", "Kelurahan": "Tembalang",
			"Kecamatan": "Kec. Tembalang", "Kode Pos": "50275", "Jenis Tinggal": "Bersama orang tua", "Alat Transportasi": "Sepeda motor",
			"Telepon": s.Telepon, "HP": s.HP, "E-Mail": s.Email, "Penerima KPS": yaTidak(s.KPS), "Penerima KIP": yaTidak(s.KIP),
			"Rombel Saat Ini": s.Class, "Layak PIP (usulan dari sekolah)": yaTidak(s.PIP), "Sekolah Asal": "SD Negeri Tembalang 01",
			"Anak ke-berapa": 1 + i%3, "Berat Badan": 38 + i, "Tinggi Badan": 145 + i, "Jml. Saudara Kandung": i % 3,
			"Jarak Rumah ke Sekolah (KM)": 2,
		}
		if s.KIP {
			values["Nomor KIP"], values["Nama di KIP"] = "KIP"+s.NISN, s.Name
		}
		if s.KPS {
			values["No. KPS"] = "KPS" + s.NISN
		}
		col := 1
		for _, c := range DapodikColumns {
			switch c {
			case "Data Ayah", "Data Ibu", "Data Wali":
				if c != "Data Wali" {
					parent := map[string]string{"Data Ayah": "Bapak ", "Data Ibu": "Ibu "}[c] + s.Name
					for j, v := range []any{parent, 1980 + i, "SMA / sederajat", "Wiraswasta", "Rp. 1,000,000 - Rp. 1,999,999", "3374" + strconv.Itoa(200000000+i)} {
						if err := set(col+j, row, v); err != nil {
							return err
						}
					}
				}
				col += len(DapodikParent)
				continue
			}
			if v, ok := values[c]; ok && v != "" {
				if err := set(col, row, v); err != nil {
					return err
				}
				if _, isText := v.(string); isText {
					cell, _ := excelize.CoordinatesToCellName(col, row)
					if err := f.SetCellStyle(sheet, cell, cell, text); err != nil {
						return err
					}
				}
			}
			col++
		}
	}
	if err := f.SetSheetName(sheet, "Daftar Peserta Didik"); err != nil {
		return err
	}
	return f.SaveAs(path)
}
