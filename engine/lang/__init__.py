"""Rule text to IR: the compiler, the IR, facts, flow policies, resources."""
