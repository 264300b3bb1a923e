/*
 * maxrss COMMAND...: runs COMMAND and prints its peak resident set size in KiB to stderr as
 * "maxrss_kib N", for machines without GNU time (/usr/bin/time -v). Exits with the command's
 * status (128 + signal when it was killed).
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	pid_t pid;
	int status;

	if (argc < 2) {
		fprintf(stderr, "usage: maxrss COMMAND...\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (!pid) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("wait4");
		return 2;
	}
	fprintf(stderr, "maxrss_kib %ld\n", ru.ru_maxrss);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
