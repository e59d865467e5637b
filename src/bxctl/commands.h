/*
 * commands.h: the entry points of bxctl's commands, one per table line in
 * main.c. Each parses its own options from argv (argv[0] is the command's
 * last word) and returns the exit status (cli.h).
 */
#ifndef BXCTL_COMMANDS_H
#define BXCTL_COMMANDS_H

#include "bxctl/common/cli.h"

int	cmd_approvals(const struct cli_command *, int, char **);
int	cmd_approve(const struct cli_command *, int, char **);
int	cmd_refuse(const struct cli_command *, int, char **);
int	cmd_grants_check(const struct cli_command *, int, char **);
int	cmd_chat(const struct cli_command *, int, char **);
int	cmd_audit_head(const struct cli_command *, int, char **);
int	cmd_log(const struct cli_command *, int, char **);
int	cmd_status(const struct cli_command *, int, char **);
int	cmd_sessions(const struct cli_command *, int, char **);
int	cmd_explain(const struct cli_command *, int, char **);
int	cmd_grants_list(const struct cli_command *, int, char **);
int	cmd_grants_add(const struct cli_command *, int, char **);
int	cmd_grants_remove(const struct cli_command *, int, char **);
int	cmd_grants_prune(const struct cli_command *, int, char **);
int	cmd_init(const struct cli_command *, int, char **);
int	cmd_secrets_add(const struct cli_command *, int, char **);
int	cmd_secrets_list(const struct cli_command *, int, char **);
int	cmd_secrets_remove(const struct cli_command *, int, char **);

#endif
