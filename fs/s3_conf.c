/* S3 region, endpoint and credentials (s3_conf.h). The profile files are
 * AWS's INI files: `[name]` sections in credentials, `[profile name]` (and
 * `[default]`) in config, `key = value` lines, `#` and `;` comments. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "s3_conf.h"

typedef struct profile {
	char access_key[256], secret_key[256], session_token[4096], region[64];
	bool found;
} profile;

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static void set(char *dst, size_t n, const char *v)
{
	if (strlen(v) < n)
		snprintf(dst, n, "%s", v);
}

/* Reads section `name` of path (in config files `profile name`, except
 * default) into p; a missing file is no error. */
static void read_profile(const char *path, const char *name, bool config, profile *p)
{
	if (!path)
		return;
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	char want[300];
	snprintf(want, sizeof want, "%s%s", config && strcmp(name, "default") ? "profile " : "",
		 name);
	char line[8192];
	bool in = false;
	while (fgets(line, sizeof line, f)) {
		char *s = trim(line);
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			char *e = strchr(s, ']');
			if (!e)
				continue;
			*e = '\0';
			char *sec = trim(s + 1);
			/* "profile  x" with more blanks is still x */
			in = !strcmp(sec, want);
			if (!in && config && !strncmp(sec, "profile", 7) && isspace((unsigned char)sec[7]))
				in = !strcmp(trim(sec + 8), name) && strcmp(name, "default");
			if (in)
				p->found = true;
			continue;
		}
		if (!in)
			continue;
		char *eq = strchr(s, '=');
		if (!eq)
			continue;
		*eq = '\0';
		char *k = trim(s), *v = trim(eq + 1);
		if (!strcmp(k, "aws_access_key_id") && !p->access_key[0])
			set(p->access_key, sizeof p->access_key, v);
		else if (!strcmp(k, "aws_secret_access_key") && !p->secret_key[0])
			set(p->secret_key, sizeof p->secret_key, v);
		else if (!strcmp(k, "aws_session_token") && !p->session_token[0])
			set(p->session_token, sizeof p->session_token, v);
		else if (!strcmp(k, "region") && !p->region[0])
			set(p->region, sizeof p->region, v);
	}
	explicit_bzero(line, sizeof line);
	fclose(f);
}

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

/* The profile name from both files (credentials first: it wins). */
static void load_profile(pfs_getenv_fn env, const char *name, profile *p)
{
	memset(p, 0, sizeof *p);
	const char *home = nonempty(env("HOME"));
	char def[1024];
	const char *creds = nonempty(env("AWS_SHARED_CREDENTIALS_FILE"));
	if (!creds && home && snprintf(def, sizeof def, "%s/.aws/credentials", home) < (int)sizeof def)
		creds = def;
	read_profile(creds, name, false, p);
	const char *conf = nonempty(env("AWS_CONFIG_FILE"));
	if (!conf && home && snprintf(def, sizeof def, "%s/.aws/config", home) < (int)sizeof def)
		conf = def;
	read_profile(conf, name, true, p);
}

static void take(pfs_s3_conf *c, const char *ak, const char *sk, const char *tok)
{
	set(c->access_key, sizeof c->access_key, ak);
	set(c->secret_key, sizeof c->secret_key, sk);
	set(c->session_token, sizeof c->session_token, tok ? tok : "");
	c->sign = true;
}

pq_status pfs_s3_conf_resolve(const pfs_s3_opts *o, pfs_getenv_fn env, pfs_s3_conf *c,
			      pq_error *err)
{
	memset(c, 0, sizeof *c);
	profile *named = calloc(1, sizeof *named), *dflt = calloc(1, sizeof *dflt);
	if (!named || !dflt) {
		free(named);
		free(dflt);
		return pq_fail(err, PQ_ENOMEM, "no memory");
	}
	pq_status st = PQ_OK;
	const char *pname = nonempty(o->profile) ? o->profile : nonempty(env("AWS_PROFILE"));
	if (pname) {
		load_profile(env, pname, named);
		if (!named->found) {
			st = pq_fail(err, PQ_EINVAL,
				     "profile %s not found in the AWS credentials or config file",
				     pname);
			goto out;
		}
	}
	load_profile(env, "default", dflt);

	/* credentials: the named profile, the environment, the default profile */
	const char *eak = nonempty(env("AWS_ACCESS_KEY_ID")),
		   *esk = nonempty(env("AWS_SECRET_ACCESS_KEY"));
	if (o->no_sign) {
		snprintf(c->cred_from, sizeof c->cred_from, "no_sign");
	} else if (pname && named->access_key[0] && named->secret_key[0]) {
		take(c, named->access_key, named->secret_key, named->session_token);
		snprintf(c->cred_from, sizeof c->cred_from, "profile %.100s", pname);
	} else if (pname) {
		st = pq_fail(err, PQ_EINVAL, "profile %s has no aws_access_key_id and "
			     "aws_secret_access_key", pname);
		goto out;
	} else if (eak && esk) {
		take(c, eak, esk, nonempty(env("AWS_SESSION_TOKEN")));
		snprintf(c->cred_from, sizeof c->cred_from, "AWS_ACCESS_KEY_ID");
	} else if (dflt->access_key[0] && dflt->secret_key[0]) {
		take(c, dflt->access_key, dflt->secret_key, dflt->session_token);
		snprintf(c->cred_from, sizeof c->cred_from, "profile default");
	} else {
		st = pq_fail(err, PQ_EINVAL, "no S3 credentials: set AWS_ACCESS_KEY_ID and "
			     "AWS_SECRET_ACCESS_KEY, use -o profile=NAME, or -o no_sign for a "
			     "public bucket");
		goto out;
	}

	/* region: option, environment, the profile's, us-east-1 */
	const char *region = nonempty(o->region);
	if (!region)
		region = nonempty(env("AWS_REGION"));
	if (!region)
		region = nonempty(env("AWS_DEFAULT_REGION"));
	if (!region)
		region = pname ? nonempty(named->region) : nonempty(dflt->region);
	if (!region)
		region = "us-east-1";
	if (strlen(region) >= sizeof c->region || strpbrk(region, ":/ \t")) {
		st = pq_fail(err, PQ_EINVAL, "region %s is not a region name", region);
		goto out;
	}
	snprintf(c->region, sizeof c->region, "%s", region);

	/* endpoint: option, environment, AWS's */
	const char *ep = nonempty(o->endpoint);
	if (!ep)
		ep = nonempty(env("AWS_ENDPOINT_URL_S3"));
	if (!ep)
		ep = nonempty(env("AWS_ENDPOINT_URL"));
	c->custom_endpoint = ep != NULL;
	if (ep) {
		if (strncmp(ep, "http://", 7) && strncmp(ep, "https://", 8)) {
			st = pq_fail(err, PQ_EINVAL, "endpoint %s: expected http://HOST[:PORT] or "
				     "https://HOST[:PORT]", ep);
			goto out;
		}
		if (strlen(ep) >= sizeof c->endpoint) {
			st = pq_fail(err, PQ_EINVAL, "endpoint is too long");
			goto out;
		}
		snprintf(c->endpoint, sizeof c->endpoint, "%s", ep);
	} else {
		snprintf(c->endpoint, sizeof c->endpoint, "https://s3.%s.amazonaws.com", c->region);
	}
	size_t n = strlen(c->endpoint);
	while (n > 8 && c->endpoint[n - 1] == '/')
		c->endpoint[--n] = '\0';
	c->path_style = o->path_style || (c->custom_endpoint && !o->virtual_hosted);
out:
	explicit_bzero(named, sizeof *named);
	explicit_bzero(dflt, sizeof *dflt);
	free(named);
	free(dflt);
	if (st != PQ_OK)
		pfs_s3_conf_clear(c);
	return st;
}

void pfs_s3_conf_clear(pfs_s3_conf *c)
{
	explicit_bzero(c->access_key, sizeof c->access_key);
	explicit_bzero(c->secret_key, sizeof c->secret_key);
	explicit_bzero(c->session_token, sizeof c->session_token);
}

bool pfs_s3_bucket_url(const pfs_s3_conf *c, const char *bucket, char *buf, size_t n)
{
	int k;
	if (c->path_style) {
		k = snprintf(buf, n, "%s/%s", c->endpoint, bucket);
	} else {
		const char *host = strstr(c->endpoint, "://");
		host = host ? host + 3 : c->endpoint;
		k = snprintf(buf, n, "%.*s%s.%s", (int)(host - c->endpoint), c->endpoint, bucket,
			     host);
	}
	return k > 0 && (size_t)k < n;
}

bool pfs_s3_split_url(const char *url, char *bucket, size_t bn, char *prefix, size_t pn)
{
	if (strncmp(url, "s3://", 5))
		return false;
	const char *b = url + 5, *slash = strchr(b, '/');
	size_t bl = slash ? (size_t)(slash - b) : strlen(b);
	if (bl < 3 || bl > 63 || bl >= bn)
		return false;
	for (size_t i = 0; i < bl; i++) {
		char ch = b[i];
		if (!(islower((unsigned char)ch) || isdigit((unsigned char)ch) || ch == '-' ||
		      ch == '.' || ch == '_' || isupper((unsigned char)ch)))
			return false;
	}
	memcpy(bucket, b, bl);
	bucket[bl] = '\0';
	const char *p = slash ? slash + 1 : "";
	while (*p == '/')
		p++;
	size_t pl = strlen(p);
	while (pl && p[pl - 1] == '/')
		pl--;
	if (pl >= pn)
		return false;
	memcpy(prefix, p, pl);
	prefix[pl] = '\0';
	return !strstr(prefix, "//");
}
