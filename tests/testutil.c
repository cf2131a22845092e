/* testutil.c -- stub */
#include "testutil.h"
#include <stdlib.h>
int tu_run(Suite *s){SRunner *r=srunner_create(s);srunner_run_all(r,CK_ENV);int f=srunner_ntests_failed(r);srunner_free(r);return f?EXIT_FAILURE:EXIT_SUCCESS;}
