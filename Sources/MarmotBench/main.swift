// marmot-bench: prints speed figures for each layer (`make bench`).
#if DEBUG
print("marmot-bench (debug build: figures are pessimistic; `make bench` builds release)")
#else
print("marmot-bench (release build)")
#endif
NostrBench.run()
MLSCryptoBench.run()
TreeKEMBench.run()
MLSFramingBench.run()
MLSGroupBench.run()
await RelayBench.run()
await MarmotProtocolBench.run()
