/*
 * check_dra.c -- DRA: decoding the resource.k8s.io objects, device
 * matching, claim allocation on a node, and plans with device claims
 * (every plan goes through the verifier via tu_solve).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "decode.h"
#include "dra.h"
#include "load.h"

static const char *corpus(char *buf, size_t n, const char *file)
{
	const char *env = getenv("WASP_CORPUS");
	snprintf(buf, n, "%s/%s", env && *env ? env
		 : "/work/shared/corpus/real", file);
	return buf;
}

static int load_path(const char *path, ws_snapshot **s, wasp_error *e)
{
	wa_arena *a = wa_new();
	wt_doc doc;
	memset(e, 0, sizeof *e);
	*s = NULL;
	int rc = wl_load_file(a, path, &doc, e);
	if (!rc)
		rc = wd_decode(&doc, 1, s, e);
	wa_destroy(a);
	return rc;
}

/* Every DRA file of the corpus loads (the one v1alpha2 PodGroup file is
 * refused for its PodGroup, with the v1beta1 rewrite in the message). */
START_TEST(corpus_files)
{
	static const struct {
		const char *file;
		int ok;
	} files[] = {
		{"dra-deviceclass-website.yaml", 1},
		{"dra-example-resourceslice-list.yaml", 1},
		{"dra-rct-firstavailable.yaml", 1},
		{"dra-rct-website-cel-quantity.yaml", 1},
		{"dra-resourceslice-v1beta1-basic-kwok.yaml", 1},
		{"kep5729-workload-podgroups-resourceclaims-v1beta1.yaml", 1},
		{"node-kwok-dra-gpu-1T.yaml", 1},
		{"nvidia-gpu-test4-mig-matchattribute-v1.yaml", 1},
		{"nvidia-gpu-test4-mig-matchattribute-v1beta1.yaml", 1},
		{"nvidia-imex-resourceslice-v1alpha3.yaml", 1},
		{"nvidia-mig-extended-resource-deviceclass.yaml", 1},
		{"podgroup-v1alpha2-resourceclaimtemplate.yaml", 0},
	};
	char buf[4096];
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		FILE *f = fopen(corpus(buf, sizeof buf, files[i].file), "r");
		if (!f) {
			fprintf(stderr, "check_dra: %s absent, skipped\n", buf);
			continue;
		}
		fclose(f);
		ws_snapshot *s;
		wasp_error e;
		int rc = load_path(buf, &s, &e);
		if (files[i].ok)
			ck_assert_msg(rc == WASP_OK, "%s: %s", files[i].file,
				      e.msg);
		else
			ck_assert_msg(rc == WASP_EINPUT &&
				      strstr(e.msg, "v1beta1"), "%s: %s",
				      files[i].file, e.msg);
		ws_snapshot_free(s);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dra");
	TCase *t = tcase_create("decode");
	tcase_add_test(t, corpus_files);
	suite_add_tcase(s, t);
	return tu_run(s);
}
