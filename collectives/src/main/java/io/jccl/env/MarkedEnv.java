package io.jccl.env;

import java.util.Map;

/**
 * A launcher recognised by one marker variable (its rank variable) whose size always comes from the same variable.
 */
abstract class MarkedEnv implements EnvAdapter {
    private final String marker;
    private final String size;

    /**
     * @param marker the variable whose presence says this launcher started the process
     * @param size   the variable the size comes from
     */
    MarkedEnv(String marker, String size) {
        this.marker = marker;
        this.size = size;
    }

    @Override
    public final boolean detects(Map<String, String> env) {
        return EnvVars.isSet(env, marker);
    }

    @Override
    public final String sizeVariable(Map<String, String> env) {
        return size;
    }
}
