/work/main/userspace/check/cmd/status.o: \
 /work/main/userspace/cmd/status.c \
 /work/main/userspace/include/nanograph.h /work/main/userspace/cmd/cmd.h
/work/main/userspace/include/nanograph.h:
/work/main/userspace/cmd/cmd.h:
