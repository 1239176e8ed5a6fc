# `reasonix run` 的文本输出与程序打印的错误（host-cli/src/commands/run/、wording.rs、exit.rs）。
