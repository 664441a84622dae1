package io.jccl.env;

import java.util.Map;

/** One launcher's variables, read into a {@link LaunchEnvironment}: a pure function of the environment. */
interface EnvAdapter {
    /** @return whether this launcher's marker variable is set */
    boolean detects(Map<String, String> env);

    /**
     * @return where the process stands
     * @throws io.jccl.JcclException INVALID_ARGUMENT naming the variable and value that are missing or wrong
     */
    LaunchEnvironment read(Map<String, String> env, LaunchEnvironment.Context context);

    /** @return the variable the size came from, for messages */
    String sizeVariable(Map<String, String> env);
}
