"""The baseline of bench/nnsmith_beside.sh: what one op through torch.compile
reaches of Inductor (its import, dynamo's trace, one pointwise kernel's
lowering, code generation and C++ build). What a fuzzer reaches beyond this
is what its cases exercise; any compile reaches the rest."""
import torch


def main():
    torch.set_num_threads(1)
    compiled = torch.compile(lambda x: x + 1, backend="inductor", fullgraph=True, dynamic=False)
    compiled(torch.ones(8))


if __name__ == "__main__":
    main()
