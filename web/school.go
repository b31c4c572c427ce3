package web

import (
	"context"
	"net/url"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/views/pages"
)

// schoolLogoURL addresses one version of the logo, so it can be cached for good.
func schoolLogoURL(version string) string {
	if version == "" {
		return ""
	}
	return "/school/logo?" + url.Values{"v": {version}}.Encode()
}

func schoolHeaderOf(ctx context.Context, p school.Profile) pages.SchoolHeader {
	hd := pages.SchoolHeader{Name: p.Name, Address: p.Address, NPSN: p.NPSN, Phone: p.Phone, LogoURL: schoolLogoURL(p.LogoVersion)}
	if can(ctx, auth.ManageSettings) {
		hd.ProfileURL = "/settings/school"
	}
	return hd
}
