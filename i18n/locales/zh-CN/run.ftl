# `reasonix run` 的文本输出与程序打印的错误（host-cli/src/commands/run/、wording.rs、exit.rs）。

## stderr 上的工具活动与提示（`--output-format text`、`json`）
run-subagent-started = ⇢ 子代理 { $label }（{ $model }）
run-subagent-finished = ⇠ 子代理 { $label }：{ $status }（{ $steps } 次请求）
run-child-tool-started = {"  "}[{ $label }] → { $name } { $arguments }
run-child-tool-error = {"  "}[{ $label }] ← { $name }：出错：{ $first }
run-child-note = 提示：[{ $label }] { $text }
run-child-retrying = [{ $label }] 重试（{ $attempt }/{ $max }），{ $delay } 秒后：{ $reason }
run-note = 提示：{ $text }
run-retrying = 重试（{ $attempt }/{ $max }），{ $delay } 秒后：{ $reason }
run-tool-not-run = ✗ { $name } 未运行：{ $first }
run-tool-error = ← { $who }出错：{ $first }
run-tool-ok = ← { $who }成功，{ $lines } 行
run-error = 错误：{ $message }

## 运行与会话共用的措辞（host-cli/src/wording.rs）
wording-compacted = 已压缩历史（{ $tier }{ $manual ->
        [yes] ，/compact
       *[no] {""}
    }，第 { $number } 次）：约 { $before } → 约 { $after } token，节省约 { $saved }
wording-tools-changed = 两轮之间工具发生变化：{ $changes }
wording-restarted-reasoning = 流被中断，重放的思考不同：推理从头重新开始
wording-restarted-answer = 流被中断，重放的回答不同：回答从头重新开始
wording-not-run = `{ $name }` 未运行：{ $reason }
