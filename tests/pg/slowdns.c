/*
 * slowdns.c - an LD_PRELOAD shim for tests/pg-hostile.bats: the host
 * name "slow.test" takes 10 seconds to resolve (to 127.0.0.1), as a
 * resolver that does not answer would; "fast.test" resolves at once to
 * the same.  Every other name is the C library's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netdb.h>
#include <string.h>
#include <unistd.h>

typedef int gai_fn(const char *, const char *, const struct addrinfo *,
    struct addrinfo **);

int
getaddrinfo(const char *node, const char *service,
    const struct addrinfo *hints, struct addrinfo **res)
{
	gai_fn *real;

	*(void **)(&real) = dlsym(RTLD_NEXT, "getaddrinfo");
	if (node != NULL && strcmp(node, "slow.test") == 0) {
		sleep(10);
		node = "127.0.0.1";
	} else if (node != NULL && strcmp(node, "fast.test") == 0)
		node = "127.0.0.1";
	return real(node, service, hints, res);
}
