#!/usr/bin/env python3
"""Writes Dapodik's students export ("Daftar PD") as a flat OpenDocument spreadsheet, the
same as internal/uploads/sheettest's Dapodik: four title rows, two heading rows (each
heading merged over both, the parents' and guardian's grouped with their own headings
below), a row per student. make.sh has LibreOffice save it as .xls and .ods."""
from xml.sax.saxutils import escape

PARENT = ["Nama", "Tahun Lahir", "Jenjang Pendidikan", "Pekerjaan", "Penghasilan", "NIK"]
COLUMNS = ["No", "Nama", "NIPD", "JK", "NISN", "Tempat Lahir", "Tanggal Lahir", "NIK", "Agama",
    "Alamat", "RT", "RW", "Dusun", "Kelurahan", "Kecamatan", "Kode Pos", "Jenis Tinggal", "Alat Transportasi", "Telepon",
    "HP", "E-Mail", "SKHUN", "Penerima KPS", "No. KPS", "Data Ayah", "Data Ibu", "Data Wali", "Rombel Saat Ini",
    "No Peserta Ujian Nasional", "No Seri Ijazah", "Penerima KIP", "Nomor KIP", "Nama di KIP", "Nomor KKS",
    "No Registrasi Akta Lahir", "Bank", "Nomor Rekening Bank", "Rekening Atas Nama", "Layak PIP (usulan dari sekolah)",
    "Alasan Layak PIP", "Kebutuhan Khusus", "Sekolah Asal", "Anak ke-berapa", "Lintang", "Bujur", "No KK",
    "Berat Badan", "Tinggi Badan", "Lingkar Kepala", "Jml. Saudara Kandung", "Jarak Rumah ke Sekolah (KM)"]
GROUPS = {"Data Ayah": "Bapak ", "Data Ibu": "Ibu ", "Data Wali": None}
STUDENTS = [
    dict(Name="Ahmad Fauzi", NIPD="23240701", NISN="0112345601", Class="Kelas 7A", HP="081234560001", KIP=True, PIP=True),
    dict(Name="Bella Safitri", NIPD="23240702", NISN="0112345602", Class="Kelas 7A", Telepon="(024) 7601234", KPS=True),
    dict(Name="Candra Wijaya", NIPD="23240703", NISN="0112345603", Class="Kelas 7B", HP="081234560003", Telepon="(024) 7605555", Email="candra.ortu@example.com"),
    dict(Name="Dina Maharani", NIPD="23240704", NISN="0112345604", Class="Kelas 7B", HP="+62 812 3456 0004", KIP=True, KPS=True, PIP=True),
    dict(Name="Eko Prasetyo", NIPD="23240705", NISN="0112345605", Class="Kelas 8A", HP="081234560005"),
]


def text(s, attrs=""):
    return f'<table:table-cell office:value-type="string"{attrs}><text:p>{escape(s)}</text:p></table:table-cell>'


def num(v):
    return f'<table:table-cell office:value-type="float" office:value="{v}"><text:p>{v}</text:p></table:table-cell>'


def cell(v):
    if v is None or v == "":
        return "<table:table-cell/>"
    return num(v) if isinstance(v, int) else text(v)


def ya(b):
    return "Ya" if b else "Tidak"


rows = []
for title in ["Daftar Peserta Didik", "SMP NEGERI 1 CONTOH", "Kecamatan Tembalang, Kota Semarang, Prov. Jawa Tengah",
              "Tanggal Unduh: 2027-07-15 09:12:44    Pengunduh: operator@smpn1contoh.sch.id (Operator Sekolah)"]:
    rows.append(text(title))
head, sub = [], []
for c in COLUMNS:
    if c in GROUPS:
        head.append(text(c, f' table:number-columns-spanned="{len(PARENT)}"') + "<table:covered-table-cell/>" * (len(PARENT) - 1))
        sub.extend(text(p) for p in PARENT)
    else:
        head.append(text(c, ' table:number-rows-spanned="2"'))
        sub.append("<table:covered-table-cell/>")
rows.append("".join(head))
rows.append("".join(sub))
for i, s in enumerate(STUDENTS):
    v = {"No": i + 1, "Nama": s["Name"], "NIPD": s["NIPD"], "JK": "LP"[i % 2], "NISN": s["NISN"],
         "Tempat Lahir": "Semarang", "Tanggal Lahir": f"2014-0{1 + i % 9}-1{i % 10}", "NIK": "33740" + str(1000000000 + i),
         "Agama": "Islam", "Alamat": f"Jl. Melati No. {i + 1}", "RT": "2", "RW": "5", "Kelurahan": "Tembalang",
         "Kecamatan": "Kec. Tembalang", "Kode Pos": "50275", "Jenis Tinggal": "Bersama orang tua",
         "Alat Transportasi": "Sepeda motor", "Telepon": s.get("Telepon", ""), "HP": s.get("HP", ""), "E-Mail": s.get("Email", ""),
         "Penerima KPS": ya(s.get("KPS")), "Penerima KIP": ya(s.get("KIP")), "Rombel Saat Ini": s["Class"],
         "Layak PIP (usulan dari sekolah)": ya(s.get("PIP")), "Sekolah Asal": "SD Negeri Tembalang 01",
         "Anak ke-berapa": 1 + i % 3, "Berat Badan": 38 + i, "Tinggi Badan": 145 + i, "Jml. Saudara Kandung": i % 3,
         "Jarak Rumah ke Sekolah (KM)": 2}
    if s.get("KIP"):
        v["Nomor KIP"], v["Nama di KIP"] = "KIP" + s["NISN"], s["Name"]
    if s.get("KPS"):
        v["No. KPS"] = "KPS" + s["NISN"]
    cells = []
    for c in COLUMNS:
        if c in GROUPS:
            prefix = GROUPS[c]
            if prefix is None:
                cells.extend(["<table:table-cell/>"] * len(PARENT))
            else:
                cells.extend(cell(x) for x in [prefix + s["Name"], 1980 + i, "SMA / sederajat", "Wiraswasta",
                                                "Rp. 1,000,000 - Rp. 1,999,999", "3374" + str(200000000 + i)])
        else:
            cells.append(cell(v.get(c)))
    rows.append("".join(cells))

print('<?xml version="1.0" encoding="UTF-8"?>')
print('<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
      'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
      'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2" '
      'office:mimetype="application/vnd.oasis.opendocument.spreadsheet">')
print('<office:body><office:spreadsheet><table:table table:name="Daftar Peserta Didik">')
for r in rows:
    print(f"<table:table-row>{r}</table:table-row>")
print("</table:table></office:spreadsheet></office:body></office:document>")
