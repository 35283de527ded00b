package dev.cadre.agent.bench;

final class ContextEconomyBench {
    private ContextEconomyBench() {}

    static void print(int runs) {}
}
